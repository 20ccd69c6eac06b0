//go:build !unix

package embcache

const noFollow = 0

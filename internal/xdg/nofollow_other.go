//go:build !unix

package xdg

// NoFollow is 0 off Unix, where ski's hooks do not run.
const NoFollow = 0

// NoBlock is 0 off Unix.
const NoBlock = 0

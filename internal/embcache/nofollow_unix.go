//go:build unix

package embcache

import "syscall"

// noFollow makes an open fail on a symlink rather than follow it.
const noFollow = syscall.O_NOFOLLOW

//go:build unix

package xdg

import "syscall"

// NoFollow, or'ed into os.OpenFile's flags, makes opening a symlink fail
// instead of following it: ski never writes through a link.
const NoFollow = syscall.O_NOFOLLOW

// NoBlock, or'ed into os.OpenFile's flags, makes opening a FIFO that no
// one reads fail at once instead of waiting for a reader (on a regular
// file it changes nothing): a file put where ski keeps one of its own must
// not hold ski up.
const NoBlock = syscall.O_NONBLOCK

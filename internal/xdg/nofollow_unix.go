//go:build unix

package xdg

import "syscall"

// NoFollow, or'ed into os.OpenFile's flags, makes opening a symlink fail
// instead of following it: ski never writes through a link.
const NoFollow = syscall.O_NOFOLLOW

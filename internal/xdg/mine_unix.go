//go:build unix

package xdg

import (
	"os"
	"syscall"
)

// Mine reports whether this process's user owns the file st describes.
func Mine(st os.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return !ok || int(s.Uid) == os.Getuid()
}

//go:build unix

package builder

import (
	"os"
	"syscall"
)

// fileIno is a file's inode number (0 when the system does not say).
func fileIno(st os.FileInfo) int64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int64(s.Ino)
	}
	return 0
}

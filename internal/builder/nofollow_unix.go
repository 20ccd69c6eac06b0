//go:build unix

package builder

import (
	"os"
	"syscall"
)

// noFollow makes an open fail on a symlink rather than follow it.
const noFollow = syscall.O_NOFOLLOW

// ownedByMe reports whether this process's user owns the file.
func ownedByMe(st os.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return !ok || int(s.Uid) == os.Getuid()
}

// inode is the file's inode number (0 when unknown).
func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}

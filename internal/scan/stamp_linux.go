//go:build linux

package scan

import (
	"fmt"
	"os"
	"syscall"
)

// fileID is a file's device, inode and change time: what changes when its
// bytes are replaced even if its size and modification time are restored.
func fileID(st os.FileInfo) string {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d\x00%d\x00%d.%d", s.Dev, s.Ino, s.Ctim.Sec, s.Ctim.Nsec)
}

// statDir identifies the directory at path (through symlinks) and its
// times, or reports false.
func statDir(path string) (dirID, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return dirID{}, false
	}
	return dirID{dev: uint64(st.Dev), ino: st.Ino, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}

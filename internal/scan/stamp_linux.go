//go:build linux

package scan

import (
	"os"
	"strconv"
	"syscall"
)

// appendFileID appends a file's device, inode and change time: what
// changes when its bytes are replaced even if its size and modification
// time are restored.
func appendFileID(b []byte, st os.FileInfo) []byte {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return b
	}
	b = append(strconv.AppendUint(b, s.Dev, 10), 0)
	b = append(strconv.AppendUint(b, s.Ino, 10), 0)
	b = append(strconv.AppendInt(b, s.Ctim.Sec, 10), '.')
	return strconv.AppendInt(b, s.Ctim.Nsec, 10)
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

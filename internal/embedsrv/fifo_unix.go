//go:build unix

package embedsrv

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/skill-inject/ski/internal/xdg"
)

func mkfifo(path string) error { return unix.Mkfifo(path, 0o600) }

// pipeAtomic is the longest write a pipe takes whole (POSIX's PIPE_BUF is
// at least 512; Linux and macOS take 4096 at once).
const pipeAtomic = 4096

// SendHint hands event (one line of JSON) to the server of socket ahead of
// its request (see HintPath). It writes only to a FIFO of this user's that a
// server holds open, in a directory of this user's that no one else may
// enter; it never follows a symlink and never waits: a full FIFO, or one no
// server reads, gets nothing. It reports whether the hint was written.
func SendHint(socket string, event []byte) bool {
	if len(event)+1 > pipeAtomic {
		return false
	}
	dir, err := os.Lstat(filepath.Dir(socket))
	if err != nil || !dir.IsDir() || dir.Mode().Perm()&0o077 != 0 || !xdg.Mine(dir) {
		return false
	}
	// A raw descriptor: an *os.File would park a write to a full FIFO in
	// the runtime's poller instead of failing with EAGAIN.
	fd, err := unix.Open(HintPath(socket), unix.O_WRONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false // ENXIO: no server reads it
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO || int(st.Uid) != os.Getuid() {
		return false
	}
	n, err := unix.Write(fd, append(event[:len(event):len(event)], '\n'))
	return err == nil && n == len(event)+1
}

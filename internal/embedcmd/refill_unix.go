//go:build unix && !linux

package embedcmd

import (
	"os"

	"golang.org/x/sys/unix"
)

// refillStdin makes data this process's standard input (descriptor 0), for
// a program it execs next: an unlinked temporary file holding data, read
// from its start.
func refillStdin(data []byte) error {
	f, err := os.CreateTemp("", "ski-event-*")
	if err != nil {
		return err
	}
	defer f.Close()
	os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		return err
	}
	if _, err := f.Seek(0, 0); err != nil {
		return err
	}
	return unix.Dup2(int(f.Fd()), 0)
}

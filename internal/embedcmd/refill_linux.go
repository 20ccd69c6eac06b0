package embedcmd

import (
	"os"

	"golang.org/x/sys/unix"
)

// refillStdin makes data this process's standard input (descriptor 0), for
// a program it execs next: a memory file holding data, read from its
// start (the prompt never reaches a disk).
func refillStdin(data []byte) error {
	fd, err := unix.MemfdCreate("ski-event", unix.MFD_CLOEXEC)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), "ski-event")
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if _, err := f.Seek(0, 0); err != nil {
		return err
	}
	return unix.Dup2(fd, 0)
}

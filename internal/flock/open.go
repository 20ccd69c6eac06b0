package flock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/skill-inject/ski/internal/aside"
	"github.com/skill-inject/ski/internal/xdg"
)

// Open opens (creating) the lock file at path: a regular file, never
// through a symlink, never waiting on a FIFO. Anything else in its place
// (a symlink, a directory, a FIFO, a file this user cannot open) is set
// aside (package aside), once, and a new one made: a lock file lives in a
// folder of the user's own.
func Open(path string) (*os.File, error) {
	for try := 0; ; try++ {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|xdg.NoFollow|syscall.O_NONBLOCK, 0o600)
		if err == nil {
			if st, serr := f.Stat(); serr == nil && st.Mode().IsRegular() {
				return f, nil
			}
			f.Close()
			err = errors.New("not a regular file")
		}
		if try > 0 {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if _, aerr := aside.Move(path, time.Now()); aerr != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
	}
}

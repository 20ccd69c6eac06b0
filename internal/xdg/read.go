package xdg

import (
	"fmt"
	"io"
	"os"
)

// ReadFile reads the regular file at path, never waiting to open it: a
// FIFO or device put in a file's place is an error, not a wait for a
// writer.
func ReadFile(path string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// OpenRegular opens the regular file at path for reading, never waiting
// to open it (see ReadFile).
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|NoBlock, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file (%v)", path, st.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

//go:build !unix

package embedsrv

import (
	"errors"
	"os"
)

// Spawn is not implemented off Unix: ski's hosts run hooks on Unix.
func Spawn([]string, string, ...string) error { return errors.ErrUnsupported }

func mkfifo(string) error { return errors.ErrUnsupported }

// SpawnWith is not implemented off Unix.
func SpawnWith([]string, *os.File, []uintptr, string, ...string) error {
	return errors.ErrUnsupported
}

// SendHint hands nothing over off Unix.
func SendHint(string, []byte) bool { return false }

//go:build !unix

package flock

import (
	"errors"
	"os"
)

// TryLock is not implemented off Unix: ski's hosts run hooks on Unix.
func TryLock(*os.File) (bool, error) {
	return false, errors.ErrUnsupported
}

// Lock is not implemented off Unix.
func Lock(*os.File) error { return errors.ErrUnsupported }

// Unlock is not implemented off Unix.
func Unlock(*os.File) error { return errors.ErrUnsupported }

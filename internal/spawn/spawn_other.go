//go:build !unix

package spawn

import (
	"errors"
	"os"
)

// Detached is not implemented off Unix: ski's hosts run hooks on Unix.
func Detached([]string, string, ...string) error { return errors.ErrUnsupported }

// With is not implemented off Unix.
func With([]string, *os.File, []uintptr, string, ...string) error {
	return errors.ErrUnsupported
}

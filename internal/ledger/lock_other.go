//go:build !unix

package ledger

import (
	"errors"
	"os"
)

// tryLock is not implemented off Unix: ski's hosts run hooks on Unix.
func tryLock(*os.File) (bool, error) {
	return false, errors.ErrUnsupported
}

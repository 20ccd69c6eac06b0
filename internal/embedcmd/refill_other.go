//go:build !unix

package embedcmd

import "errors"

// refillStdin cannot hand an event on off Unix, where ski's hooks do not
// run.
func refillStdin([]byte) error { return errors.ErrUnsupported }

//go:build !unix

package embedsrv

import "errors"

func mkfifo(string) error { return errors.ErrUnsupported }

// SendHint hands nothing over off Unix.
func SendHint(string, []byte) bool { return false }

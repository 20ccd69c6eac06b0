//go:build !unix

package unixsock

import (
	"errors"
	"os"
	"time"
)

// Listener accepts connections on a unix socket it created.
type Listener struct{}

// ErrClosed is returned by Accept once the listener is closed.
var ErrClosed = errors.New("listener closed")

// Dial is not supported here.
func Dial(string, time.Duration) (*os.File, error) { return nil, errors.ErrUnsupported }

// Listen is not supported here.
func Listen(string) (*Listener, error) { return nil, errors.ErrUnsupported }

// Accept is not supported here.
func (*Listener) Accept() (*os.File, error) { return nil, errors.ErrUnsupported }

// Close does nothing.
func (*Listener) Close() error { return nil }

// CheckPeer trusts no peer off Unix.
func CheckPeer(*os.File) error { return errors.ErrUnsupported }

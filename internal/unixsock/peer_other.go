//go:build unix && !linux && !darwin && !freebsd

package unixsock

import (
	"errors"
	"os"
)

// peerUID cannot tell the peer's user here, so no peer is trusted (the
// embed server's clients then embed in process).
func peerUID(*os.File) (int, error) {
	return -1, errors.New("peer credentials: not supported on this system")
}

package unixsock

import (
	"fmt"
	"os"
	"syscall"
)

// peerUID is the user id of the process at the other end of conn
// (SO_PEERCRED: the peer's credentials when it connected or listened).
func peerUID(conn *os.File) (int, error) {
	rc, err := conn.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if cerr != nil {
		return -1, fmt.Errorf("peer credentials: %w", cerr)
	}
	return int(cred.Uid), nil
}

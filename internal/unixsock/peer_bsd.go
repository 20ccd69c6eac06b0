//go:build darwin || freebsd

package unixsock

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// peerUID is the user id of the process at the other end of conn
// (LOCAL_PEERCRED: its effective user id when it connected or listened).
func peerUID(conn *os.File) (int, error) {
	rc, err := conn.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Xucred
	var cerr error
	if err := rc.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if cerr != nil {
		return -1, fmt.Errorf("peer credentials: %w", cerr)
	}
	return int(cred.Uid), nil
}

//go:build unix

package front

import (
	"errors"
	"syscall"
)

// alive reports whether a process with that id runs.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

//go:build unix

package spawn

import (
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Detached starts "exe args..." with environment env as a detached process:
// in its own session, with /dev/null for its standard streams and none of
// this process's other descriptors (a host waiting for a hook's stderr to
// close must not wait for it), and does not wait for it. It forks with
// syscall.ForkExec: os.StartProcess first checks, once per process, that
// pidfds work by starting a child of its own, which cost ski-embed's exit
// ~5 ms. The child is waited for when it ends, so a starter that lives on
// (the embed server, which starts builders all day) collects no zombies.
func Detached(env []string, exe string, args ...string) error {
	return With(env, nil, nil, exe, args...)
}

// With is Detached with stderr (nil: /dev/null) as the child's standard
// error and the extra files as its descriptors 3, 4, ... (a lock it is to
// hold, say).
func With(env []string, stderr *os.File, extra []uintptr, exe string, args ...string) error {
	closeOnExec()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("start %s: %w", exe, err)
	}
	defer null.Close()
	fd := null.Fd()
	files := []uintptr{fd, fd, fd}
	if stderr != nil {
		files[2] = stderr.Fd()
	}
	files = append(files, extra...)
	pid, err := syscall.ForkExec(exe, append([]string{exe}, args...), &syscall.ProcAttr{
		Env: env, Files: files, Sys: &syscall.SysProcAttr{Setsid: true}})
	if err != nil {
		return fmt.Errorf("start %s: %w", exe, err)
	}
	go reap(pid)
	return nil
}

// reap waits for the child pid to end and so frees its process table
// entry. A starter that exits first leaves the child to init, which does
// the same.
func reap(pid int) {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			return
		}
	}
}

// closeOnExec marks every descriptor above stderr close-on-exec: Go opens
// its own files that way, but descriptors inherited from a shell (the hook's
// fd 3) are not.
func closeOnExec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

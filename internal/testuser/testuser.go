//go:build unix

// Package testuser runs a test binary as another user, for tests of what ski
// does when the other end of a socket, or a file, belongs to someone else.
// Starting a process as another user needs root, which the tests have here;
// the helpers fail the test otherwise, never skip it.
package testuser

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Other is the unprivileged user the tests run their other side as.
const Other = 65534

// SharedDir is a fresh directory every user may enter and write, removed
// when the test ends.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ski-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Command is the running test binary, copied into dir (which the user must
// be able to enter), to be run as uid with only env in its environment.
func Command(t testing.TB, dir string, uid uint32, env ...string) *exec.Cmd {
	t.Helper()
	if os.Getuid() != 0 {
		t.Fatalf("running a process as uid %d needs root (uid %d)", uid, os.Getuid())
	}
	exe := filepath.Join(dir, filepath.Base(os.Args[0]))
	if _, err := os.Stat(exe); err != nil {
		b, err := os.ReadFile(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exe, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(exe)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	return cmd
}

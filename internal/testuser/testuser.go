//go:build unix

// Package testuser runs a test binary as another user, for tests of what ski
// does when the other end of a socket, or a file, belongs to someone else.
// Starting a process as another user, or giving a file away, needs root,
// which CI's tests have: run as another user, such a test skips and says
// why (under SKI_REQUIRE_ROOT=1 it fails instead).
package testuser

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// NeedRoot skips t, saying why it needs root for what, unless this process
// is root; under SKI_REQUIRE_ROOT=1 it fails t instead.
func NeedRoot(t testing.TB, what string) {
	t.Helper()
	if os.Getuid() == 0 {
		return
	}
	msg := fmt.Sprintf("%s needs root (this is uid %d)", what, os.Getuid())
	if os.Getenv("SKI_REQUIRE_ROOT") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

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
	NeedRoot(t, fmt.Sprintf("running a process as uid %d", uid))
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

//go:build linux

package spawn

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// children lists this process's child processes by state ('Z' for a zombie).
func children(t *testing.T) map[int]byte {
	t.Helper()
	me := os.Getpid()
	out := map[int]byte{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == me {
			pid, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/proc/"), "/stat"))
			out[pid] = f[0][0]
		}
	}
	return out
}

// A long-lived starter (the embed server starts builders all day) must not
// collect zombies: each detached child is waited for once it ends.
func TestDetachedLeavesNoZombie(t *testing.T) {
	for i := 0; i < 3; i++ {
		if err := Detached(os.Environ(), "/bin/sh", "-c", "exit 3"); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		kids := children(t)
		if len(kids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("children left after they ended (pid: state): %v", kids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The extra descriptors reach the child as 3, 4, ... and its stderr is the
// file given.
func TestWithHandsOnFiles(t *testing.T) {
	dir := t.TempDir()
	errf, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	extra, err := os.Create(filepath.Join(dir, "extra"))
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	if err := With(os.Environ(), errf, []uintptr{extra.Fd()}, "/bin/sh", "-c", "echo on-stderr >&2; echo on-3 >&3"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		a, _ := os.ReadFile(errf.Name())
		b, _ := os.ReadFile(extra.Name())
		if string(a) == "on-stderr\n" && string(b) == "on-3\n" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("stderr %q, descriptor 3 %q", a, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

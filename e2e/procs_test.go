package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// stopServersUnder registers a cleanup that stops every embed server whose
// command line names a path under dir (an isolated test home), so tests that
// go through the real hooks leave no daemon behind.
func stopServersUnder(t *testing.T, dir string) {
	t.Cleanup(func() {
		for _, pid := range serversUnder(dir) {
			syscall.Kill(pid, syscall.SIGTERM)
		}
	})
}

// serversUnder lists the running embed servers whose command line names
// something under dir.
func serversUnder(dir string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmdline, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(cmdline, []byte(dir)) || !bytes.Contains(cmdline, []byte("--serve")) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// stopServersUnder registers a cleanup that stops every embed server whose
// command line names a path under dir (an isolated test home), so tests that
// go through the real hooks leave no daemon behind.
func stopServersUnder(t *testing.T, dir string) {
	t.Cleanup(func() {
		for _, pid := range serversUnder(dir) {
			syscall.Kill(pid, syscall.SIGTERM)
		}
		// Background index builders too, and wait for them: they write
		// under dir, which the test's cleanup removes next.
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			pids := processesUnder(dir, "--builder")
			if len(pids) == 0 {
				break
			}
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// serversUnder lists the running embed servers whose command line names
// something under dir.
func serversUnder(dir string) []int { return processesUnder(dir, "--serve") }

// processesUnder lists the running processes whose command line names
// something under dir and has flag.
func processesUnder(dir, flag string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmdline, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(cmdline, []byte(dir)) || !bytes.Contains(cmdline, []byte(flag)) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// processesOf lists the running processes whose environment has HOME=home:
// everything a world's hooks started.
func processesOf(home string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00HOME="+home+"\x00")) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

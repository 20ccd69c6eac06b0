package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serverPID waits up to d for the world's embed server to answer and
// returns its process id (0 if none came up).
func (w *world) serverPID(d time.Duration) int {
	w.t.Helper()
	run := filepath.Join(w.home, ".local", "state", "ski", "run")
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		socks, _ := filepath.Glob(filepath.Join(run, "*.sock"))
		if len(socks) != 1 {
			continue
		}
		b, _ := os.ReadFile(socks[0] + ".lock")
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return pid
		}
	}
	return 0
}

// The warm path (embed server) gives byte-identical payloads to the cold one
// (model loaded in process), survives a killed server, and session-start
// starts the server without waiting for it.
func TestWarmEqualsCold(t *testing.T) {
	prompts := []string{
		"write a blameless postmortem for yesterday's 40 minute checkout outage, the timeline is in incident-notes.md",
		"create a helm chart for our api service with configurable replicas and ingress",
		"clean up this messy csv export: duplicate rows, mixed date formats and stray whitespace",
		"@secret-scan look at the last three commits",
		"what's the capital of Australia",
	}
	// Each prompt in a fresh session so the ledger does not silence repeats.
	payloads := func(w *world, round string) [][]byte {
		var out [][]byte
		for i, p := range prompts {
			b := withPrompt(t, w.payload("claude-prompt.json"), p)
			out = append(out, []byte(strings.Replace(string(b), "9b2f6c1e-4a7d-4f3e-8c55-2d0e7f1a6b90", round+"-"+strconv.Itoa(i), 1)))
		}
		return out
	}
	cold := newWorld(t)
	realModel(t, cold)
	cold.sessionStart("claude")
	var want []string
	for _, p := range payloads(cold, "s") {
		want = append(want, cold.hook("claude", "prompt", p))
	}
	if want[0] == "" || want[1] == "" {
		t.Fatalf("cold payloads: %q", want)
	}

	warm := newWorld(t)
	realModel(t, warm)
	warm.extra = append(warm.extra, "SKI_EMBED_SERVER=1")
	start := time.Now()
	warm.sessionStart("claude")
	t.Logf("session-start and the background index build %v", time.Since(start))
	pid := warm.serverPID(20 * time.Second)
	if pid == 0 {
		t.Fatal("session-start started no embed server")
	}
	for i, p := range payloads(warm, "s") {
		if got := warm.hook("claude", "prompt", p); got != want[i] {
			t.Errorf("prompt %d: warm payload differs:\n got %s\nwant %s", i, got, want[i])
		}
	}
	// The server dies: its socket file stays, the hook still answers the
	// same, and starts a new server.
	syscall.Kill(pid, syscall.SIGKILL)
	time.Sleep(100 * time.Millisecond)
	for i, p := range payloads(warm, "k") {
		if got := warm.hook("claude", "prompt", p); got != want[i] {
			t.Errorf("after kill, prompt %d: payload differs:\n got %s\nwant %s", i, got, want[i])
		}
	}
	if again := warm.serverPID(20 * time.Second); again == 0 || again == pid {
		t.Fatalf("no new server after the old one died (pid %d)", again)
	}
}

// A server exits after its idle time.
func TestServerIdleExit(t *testing.T) {
	w := newWorld(t)
	realModel(t, w)
	r := w.stage(nil, "ski-embed", "--serve", "--idle", "300ms")
	if r.code != 0 {
		t.Fatalf("serve: %+v", r)
	}
	if socks, _ := filepath.Glob(filepath.Join(w.home, ".local", "state", "ski", "run", "*.sock")); len(socks) != 0 {
		t.Fatalf("socket left behind: %v", socks)
	}
}

// ski-embed itself links no model runtime: with a server up it answers
// queries alone (here ski-embed-onnx cannot even be run), with the vector
// the model gives in process; with no server it hands the query to
// ski-embed-onnx, and says so clearly when that cannot run.
func TestQueryFrontNeedsOnlyTheServer(t *testing.T) {
	w := newWorld(t)
	realModel(t, w)
	w.extra = append(w.extra, "SKI_EMBED_SERVER=1")
	// A bin directory of the world's own, so the runtime binary can be
	// made unrunnable without touching other tests'.
	bin := t.TempDir()
	for _, name := range []string{"ski-embed", "ski-embed-onnx"} {
		b, err := os.ReadFile(filepath.Join(binDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	event := withPrompt(t, w.payload("claude-prompt.json"), "create a helm chart for our api service")
	// The index, built by hand (a query never builds one).
	if r := w.stage(event, "ski-embed", "--refresh"); r.code != 0 {
		t.Fatalf("refresh: %+v", r)
	}
	vector := func(r result) string {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("query: %+v", r)
		}
		var q struct {
			Kind   string    `json:"kind"`
			Vector []float32 `json:"vector"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &q); err != nil || q.Kind != "query" || len(q.Vector) != 384 {
			t.Fatalf("query record %q: %v", r.stdout, err)
		}
		return fmt.Sprint(q.Vector)
	}
	// Cold: no server; the front hands off and the model runs in process
	// (and starts a server on its way out).
	cold := vector(w.run(event, filepath.Join(bin, "ski-embed"), "--query"))
	pid := w.serverPID(20 * time.Second)
	if pid == 0 {
		t.Fatal("no server started")
	}
	if err := os.Chmod(filepath.Join(bin, "ski-embed-onnx"), 0); err != nil {
		t.Fatal(err)
	}
	warm := vector(w.run(event, filepath.Join(bin, "ski-embed"), "--query"))
	if warm != cold {
		t.Fatalf("vector through the server differs from the in-process one")
	}
	w.stopServers()
	for end := time.Now().Add(10 * time.Second); syscall.Kill(pid, 0) == nil && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	r := w.run(event, filepath.Join(bin, "ski-embed"), "--query")
	if r.code != 1 || !strings.Contains(r.stderr, "ski-embed-onnx") || r.stdout != "" {
		t.Fatalf("no server and no runtime binary: %+v", r)
	}
}

// SKI_EMBED_SERVER=0 keeps session-start from starting a server, as it
// keeps prompts from using one.
func TestNoServerWhenTurnedOff(t *testing.T) {
	w := newWorld(t) // SKI_EMBED_SERVER=0
	realModel(t, w)
	w.sessionStart("claude")
	claudeContext(t, w.hook("claude", "prompt", w.payload("claude-prompt.json")))
	if pid := w.serverPID(2 * time.Second); pid != 0 {
		t.Fatalf("an embed server (pid %d) runs although SKI_EMBED_SERVER=0", pid)
	}
}

package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Twenty prompts of one session at once: the skill goes in exactly once.
// Fifty sessions at once: every session's ledger has its injection.
func TestConcurrentPrompts(t *testing.T) {
	w := newWorld(t)
	prompt := w.payload("claude-prompt.json")
	// The index is built first, in the background session-start starts.
	w.sessionStart("claude")
	claudeContext(t, w.hook("claude", "prompt", withSession(t, prompt, "warm-up")))

	script := filepath.Join(repo, "scripts", "hook-claude.sh")
	run := func(n int, payload func(i int) []byte) []result {
		out := make([]result, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i] = w.run(payload(i), script, "prompt")
			}()
		}
		wg.Wait()
		return out
	}

	injected := 0
	for i, r := range run(20, func(int) []byte { return withSession(t, prompt, "one-session") }) {
		if r.code != 0 {
			t.Errorf("prompt %d exited %d", i, r.code)
		}
		if r.stdout != "" {
			if ctx := claudeContext(t, r.stdout); strings.Contains(ctx, `"postmortem"`) {
				injected++
			}
		}
	}
	if injected != 1 {
		t.Errorf("20 prompts of one session at once injected the skill %d times, want 1", injected)
	}

	results := run(50, func(i int) []byte { return withSession(t, prompt, fmt.Sprintf("session-%02d", i)) })
	for i, r := range results {
		session := fmt.Sprintf("session-%02d", i)
		if !strings.Contains(r.stdout, "postmortem") {
			t.Errorf("%s: nothing injected: %+v", session, r)
		}
		show := w.stage(nil, "ski-ledger", "show", "--session", session)
		if show.code != 0 || !strings.Contains(show.stdout, `"writing/postmortem"`) {
			t.Errorf("%s: ledger lost its injection: %+v", session, show)
		}
	}
}

// withSession returns a payload with its session id replaced.
func withSession(t *testing.T, payload []byte, session string) []byte {
	t.Helper()
	return []byte(strings.Replace(string(payload), `"9b2f6c1e-4a7d-4f3e-8c55-2d0e7f1a6b90"`, fmt.Sprintf("%q", session), 1))
}

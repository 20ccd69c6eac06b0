package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/indexfile"
)

// The life of a Claude Code session: inject once, stay silent on the repeat,
// respect what the model loaded itself, inject again after compaction.
func TestClaudeSession(t *testing.T) {
	w := newWorld(t)
	prompt := w.payload("claude-prompt.json")

	w.sessionStart("claude")
	ctx := claudeContext(t, w.hook("claude", "prompt", prompt))
	if !strings.Contains(ctx, `"postmortem"`) || !strings.Contains(ctx, filepath.Join(w.skills, "writing/postmortem/SKILL.md")) {
		t.Fatalf("payload does not name the postmortem skill: %s", ctx)
	}
	if out := w.hook("claude", "prompt", prompt); out != "" {
		t.Fatalf("same prompt again in the same session: want nothing, got %s", out)
	}

	// The model reads the helm skill itself: a helm prompt injects nothing.
	w.hook("claude", "observe", w.payload("claude-read-skill.json"))
	helm := withPrompt(t, prompt, "create a helm chart for our api service with configurable replicas and ingress")
	if out := w.hook("claude", "observe", w.payload("claude-skill-tool.json")); out != "" {
		t.Fatalf("observe printed %q", out)
	}
	if out := w.hook("claude", "prompt", helm); out != "" {
		t.Fatalf("helm skill was loaded by the model, want nothing, got %s", out)
	}
	csv := withPrompt(t, prompt, "clean up this messy csv export: duplicate rows, mixed date formats and stray whitespace")
	if out := w.hook("claude", "prompt", csv); out != "" {
		t.Fatalf("csv skill was loaded through the Skill tool, want nothing, got %s", out)
	}

	// Compaction re-arms: the postmortem can be injected again.
	w.hook("claude", "session-start", w.payload("claude-session-compact.json"))
	ctx = claudeContext(t, w.hook("claude", "prompt", prompt))
	if !strings.Contains(ctx, `"postmortem"`) {
		t.Fatalf("after compaction: %s", ctx)
	}
}

func TestClaudeFreshSessionHelm(t *testing.T) {
	w := newWorld(t)
	w.sessionStart("claude")
	helm := withPrompt(t, w.payload("claude-prompt.json"), "create a helm chart for our api service with configurable replicas and ingress")
	if ctx := claudeContext(t, w.hook("claude", "prompt", helm)); !strings.Contains(ctx, `"helm-chart"`) {
		t.Fatalf("want the helm-chart skill: %s", ctx)
	}
}

func TestOpencodeSession(t *testing.T) {
	w := newWorld(t)
	w.sessionStart("opencode")
	prompt := w.payload("opencode-prompt.json")
	out := w.hook("opencode", "prompt", prompt)
	var p struct {
		Skills []string `json:"skills"`
		Inject string   `json:"inject"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("not an opencode payload: %v: %q", err, out)
	}
	if len(p.Skills) == 0 || p.Skills[0] != "writing/postmortem" || !strings.Contains(p.Inject, "MUST") {
		t.Fatalf("payload %+v", p)
	}
	if out := w.hook("opencode", "prompt", prompt); out != "" {
		t.Fatalf("repeat: want nothing, got %s", out)
	}
	w.hook("opencode", "observe", w.payload("opencode-observe-skill.json"))
	helm := withPrompt(t, prompt, "create a helm chart for our api service with configurable replicas and ingress")
	if out := w.hook("opencode", "prompt", helm); out != "" {
		t.Fatalf("helm loaded by the model: want nothing, got %s", out)
	}
	w.hook("opencode", "session-start", w.payload("opencode-session-compact.json"))
	if out := w.hook("opencode", "prompt", prompt); !strings.Contains(out, "writing/postmortem") {
		t.Fatalf("after compaction: %q", out)
	}
}

// A /name prompt is the user invoking the skill through the host: ski
// injects nothing and records it, so it is not injected later either.
func TestSlashInvocation(t *testing.T) {
	w := newWorld(t)
	w.sessionStart("claude")
	prompt := w.payload("claude-prompt.json")
	if out := w.hook("claude", "prompt", withPrompt(t, prompt, "/postmortem")); out != "" {
		t.Fatalf("slash invocation: want nothing, got %s", out)
	}
	if out := w.hook("claude", "prompt", prompt); out != "" {
		t.Fatalf("skill invoked by the user earlier: want nothing, got %s", out)
	}
	show := w.stage(nil, "ski-ledger", "show", "--session", "9b2f6c1e-4a7d-4f3e-8c55-2d0e7f1a6b90")
	if show.code != 0 || !strings.Contains(show.stdout, `"writing/postmortem"`) || !strings.Contains(show.stdout, `"user"`) {
		t.Fatalf("ledger: %+v", show)
	}
}

func TestExplicitMention(t *testing.T) {
	w := newWorld(t)
	w.sessionStart("claude")
	out := w.hook("claude", "prompt", withPrompt(t, w.payload("claude-prompt.json"), "@secret-scan look at the last three commits"))
	if ctx := claudeContext(t, out); !strings.Contains(ctx, `"secret-scan"`) || strings.Contains(ctx, "postmortem") {
		t.Fatalf("mention: %s", ctx)
	}
}

func TestSilentWhenNothingFits(t *testing.T) {
	w := newWorld(t)
	w.sessionStart("claude")
	for _, p := range []string{"what's the capital of Australia", "thanks, that worked!", "hey"} {
		if out := w.hook("claude", "prompt", withPrompt(t, w.payload("claude-prompt.json"), p)); out != "" {
			t.Errorf("%q: want nothing, got %s", p, out)
		}
	}
	if out := w.hook("claude", "prompt", w.payload("claude-task-notification.json")); out != "" {
		t.Errorf("task notification: want nothing, got %s", out)
	}
}

// Bad input of every kind: the hook prints nothing and exits 0; the stage on
// its own exits non-zero and says what is wrong.
func TestBadInput(t *testing.T) {
	w := newWorld(t)
	cases := []struct {
		name    string
		payload []byte
		stage   string // what ski-embed --query says
	}{
		{"garbage", []byte("this is not json\x00\x01"), "line 1: not a JSON object"},
		{"1 MB prompt", withPrompt(t, w.payload("claude-prompt.json"), strings.Repeat("x", 1<<20)), "line 1: record exceeds"},
		{"invalid utf-8", []byte("{\"session_id\":\"s\",\"prompt\":\"write a postmortem \xff\xfe\"}"), "line 1: invalid UTF-8"},
		{"no prompt", []byte(`{"session_id":"s"}`), `line 1: event has no string field "prompt"`},
		{"truncated json", []byte(`{"session_id":"s","prompt":"write a post`), "line 1: not a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if out := w.hook("claude", "prompt", c.payload); out != "" {
				t.Errorf("hook printed %q", out)
			}
			if out := w.hook("opencode", "prompt", c.payload); out != "" {
				t.Errorf("opencode hook printed %q", out)
			}
			r := w.stage(c.payload, "ski-embed", "--query", "--host", "claude")
			if r.code != 1 || !strings.Contains(r.stderr, "ski-embed: <stdin>: "+c.stage) {
				t.Errorf("stage: exit %d, stderr %q; want 1 and %q", r.code, r.stderr, c.stage)
			}
			for _, mode := range []string{"observe", "session-start"} {
				w.hook("claude", mode, c.payload)
			}
		})
	}
}

func TestMalformedSkills(t *testing.T) {
	w := newWorld(t)
	root := t.TempDir()
	w.skills = root
	os.MkdirAll(filepath.Join(root, "broken"), 0o755)
	os.WriteFile(filepath.Join(root, "broken", "SKILL.md"), []byte("---\nname: broken\ndescription: [unclosed\n---\nwrite a postmortem\n"), 0o644)
	if out := w.hook("claude", "prompt", w.payload("claude-prompt.json")); out != "" {
		t.Fatalf("want nothing from a root of broken skills, got %s", out)
	}
	r := w.stage(nil, "ski-scan", "--root", root)
	if r.code != 0 || !strings.Contains(r.stdout, `"kind":"error"`) || !strings.Contains(r.stdout, "frontmatter") {
		t.Fatalf("ski-scan should report the broken skill as an error record: %+v", r)
	}
}

// A corrupt automatic index is set aside and rebuilt in the background
// while prompts are answered lexically; a corrupt index named on the
// command line is an error.
func TestCorruptIndex(t *testing.T) {
	w := newWorld(t)
	w.sessionStart("claude")
	prompt := w.payload("claude-prompt.json")
	claudeContext(t, w.hook("claude", "prompt", prompt))
	files, _ := filepath.Glob(filepath.Join(w.home, ".cache", "ski", "index", "*.skv"))
	if len(files) != 1 {
		t.Fatalf("want one automatic index, got %v", files)
	}
	os.WriteFile(files[0], []byte("garbage, not zstd"), 0o600)
	fresh := withPrompt(t, prompt, "write a blameless postmortem for the database incident")
	var m map[string]any
	json.Unmarshal(fresh, &m)
	m["session_id"] = "another-session"
	fresh, _ = json.Marshal(m)
	w.hook("claude", "prompt", fresh)
	w.waitBuilds()
	if idx, err := indexfile.Read(files[0]); err != nil || idx.Header.Count == 0 {
		t.Fatalf("index not rebuilt: %v", err)
	}
	if aside, _ := filepath.Glob(files[0] + ".corrupt-*"); len(aside) != 1 {
		t.Fatalf("damaged index not set aside: %v", aside)
	}
	m["session_id"] = "a-third-session"
	fresh, _ = json.Marshal(m)
	if ctx := claudeContext(t, w.hook("claude", "prompt", fresh)); !strings.Contains(ctx, "postmortem") {
		t.Fatalf("after rebuilding the index: %s", ctx)
	}
	// A file of its own: the automatic index is the background's to set
	// aside and rebuild, and it may do so while this runs.
	named := filepath.Join(t.TempDir(), "named.skv")
	os.WriteFile(named, []byte("garbage, not zstd"), 0o600)
	q := w.stage([]byte(`{"prompt":"x"}`), "ski-embed", "--query", "--index", named)
	if q.code != 1 || !strings.Contains(q.stderr, "not a valid ski index") {
		t.Fatalf("ski-embed --query --index corrupt: %+v", q)
	}
	r := w.stage([]byte(`{"kind":"query","query_id":"q","prompt":"x","vector":[1]}`), "ski-rank", "--index", named)
	if r.code != 1 || !strings.Contains(r.stderr, "not a valid ski index") {
		t.Fatalf("ski-rank --index corrupt: %+v", r)
	}
}

func TestCorruptLedger(t *testing.T) {
	w := newWorld(t)
	w.sessionStart("claude")
	prompt := w.payload("claude-prompt.json")
	claudeContext(t, w.hook("claude", "prompt", prompt))
	ledgers, _ := filepath.Glob(filepath.Join(w.home, ".local", "state", "ski", "sessions", "*.json"))
	if len(ledgers) != 1 {
		t.Fatalf("want one ledger, got %v", ledgers)
	}
	os.WriteFile(ledgers[0], []byte("{not json"), 0o600)
	// Treated as empty: the skill can be injected again, and the bad file is kept aside.
	claudeContext(t, w.hook("claude", "prompt", prompt))
	aside, _ := filepath.Glob(ledgers[0] + ".corrupt-*")
	if len(aside) != 1 {
		t.Fatalf("corrupt ledger not set aside: %v", aside)
	}
	if b, _ := os.ReadFile(aside[0]); string(b) != "{not json" {
		t.Fatalf("set-aside ledger lost its content: %q", b)
	}
}

func TestMissingBinariesFailOpen(t *testing.T) {
	w := newWorld(t)
	// A copy of the scripts with no bin/ beside them, and no ski on PATH.
	scripts := filepath.Join(t.TempDir(), "scripts")
	os.Mkdir(scripts, 0o755)
	for _, f := range []string{"hook-claude.sh", "hook-lib.sh"} {
		b, err := os.ReadFile(filepath.Join(repo, "scripts", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(scripts, f), b, 0o755)
	}
	w.extra = []string{"SKI_BIN=", "PATH=/usr/bin:/bin", "SKI_DEBUG=1"}
	r := w.run(w.payload("claude-prompt.json"), filepath.Join(scripts, "hook-claude.sh"), "prompt")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "ski binaries not found") {
		t.Fatalf("want silent exit 0 with a debug reason, got %+v", r)
	}
}

func TestUnknownModeFailsOpen(t *testing.T) {
	w := newWorld(t)
	w.extra = []string{"SKI_DEBUG=1"}
	r := w.run(nil, filepath.Join(repo, "scripts", "hook-claude.sh"), "bogus")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "usage: hook-claude.sh") {
		t.Fatalf("got %+v", r)
	}
}

// A stage that fails mid-pipeline leaves no partial payload.
func TestStageFailureNoPartialOutput(t *testing.T) {
	w := newWorld(t)
	broken := t.TempDir()
	for _, name := range []string{"ski-embed", "ski-rank", "ski-select", "ski-ledger"} {
		os.Symlink(filepath.Join(binDir, name), filepath.Join(broken, name))
	}
	os.WriteFile(filepath.Join(broken, "ski-render"), []byte("#!/bin/sh\nprintf '{\"hookSpecificOutput\":'\nexit 1\n"), 0o755)
	w.extra = []string{"SKI_BIN=" + broken}
	if out := w.hook("claude", "prompt", w.payload("claude-prompt.json")); out != "" {
		t.Fatalf("partial payload leaked: %q", out)
	}
}

// ski-ledger stats counts an injection the model followed by reading the skill.
func TestStatsFollowUp(t *testing.T) {
	w := newWorld(t)
	w.sessionStart("claude")
	claudeContext(t, w.hook("claude", "prompt", w.payload("claude-prompt.json")))
	read := strings.ReplaceAll(string(w.payload("claude-read-skill.json")), "k8s/helm-chart", "writing/postmortem")
	w.hook("claude", "observe", []byte(read))
	r := w.stage(nil, "ski-ledger", "stats")
	if r.code != 0 || !strings.Contains(r.stdout, `{"kind":"stats","id":"writing/postmortem","sessions":1,"injected":1,"followed":1,"follow_rate":1,`) {
		t.Fatalf("stats: %+v", r)
	}
}

// The pipeline shares one deadline: when it passes, the stages stop and the
// hook prints nothing, exits 0 and says why under SKI_DEBUG=1.
func TestDeadlineFailsOpen(t *testing.T) {
	w := newWorld(t)
	w.extra = []string{"SKI_HOOK_TIMEOUT=0", "SKI_DEBUG=1"}
	r := w.run(w.payload("claude-prompt.json"), filepath.Join(repo, "scripts", "hook-claude.sh"), "prompt")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "pipeline failed") || !strings.Contains(r.stderr, "deadline passed") {
		t.Fatalf("want silent exit 0 with a deadline reason, got %+v", r)
	}
}

// The shell hands the prompt to the stages as it is: shell syntax in it is
// text, not commands, and its backslashes survive (a backslash lost would
// leave an invalid JSON escape, and nothing would be injected).
func TestPromptShellSyntaxIsText(t *testing.T) {
	w := newWorld(t)
	w.sessionStart("claude")
	w.sessionStart("opencode")
	mark := filepath.Join(t.TempDir(), "ran")
	prompt := "write a blameless postmortem for the outage $(touch " + mark + ") `touch " + mark + "` " +
		`C:\incidents\db \n $HOME` + "\nEOF\n'; touch " + mark + "; echo '"
	for _, host := range []string{"claude", "opencode"} {
		payload := withPrompt(t, w.payload("claude-prompt.json"), prompt)
		payload = bytes.Replace(payload, []byte(`"session_id":"`), []byte(`"session_id":"`+host+`-`), 1)
		out := w.hook(host, "prompt", payload)
		if !strings.Contains(out, "postmortem") {
			t.Errorf("%s: the postmortem skill was not injected: %q", host, out)
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the hook ran a command from the prompt")
	}
}

// The hooks are POSIX sh: bash (macOS's /bin/sh), dash (Debian's) and, where
// installed, busybox and mksh run them to the same payload, and report a
// failed pipeline the same way.
func TestHookShells(t *testing.T) {
	w := newWorld(t)
	w.sessionStart("claude")
	shells := [][]string{{"sh"}, {"bash", "--posix"}, {"bash"}}
	for _, extra := range [][]string{{"busybox", "sh"}, {"mksh"}} {
		if _, err := exec.LookPath(extra[0]); err == nil {
			shells = append(shells, extra)
		} else {
			t.Logf("%s not installed: not tried", extra[0])
		}
	}
	script := filepath.Join(repo, "scripts", "hook-claude.sh")
	var first string
	for i, sh := range shells {
		payload := withPrompt(t, w.payload("claude-prompt.json"), "write a blameless postmortem for the outage")
		payload = bytes.Replace(payload, []byte(`"session_id":"`), []byte(fmt.Sprintf(`"session_id":"shell-%d-`, i)), 1)
		r := w.run(payload, sh[0], append(sh[1:], script, "prompt")...)
		ctx := claudeContext(t, r.stdout)
		if first == "" {
			first = ctx
		} else if ctx != first {
			t.Errorf("%v: payload differs from %v's:\n%s\n%s", sh, shells[0], ctx, first)
		}
		w.extra = []string{"SKI_HOOK_TIMEOUT=0", "SKI_DEBUG=1"}
		r = w.run(payload, sh[0], append(sh[1:], script, "prompt")...)
		w.extra = nil
		if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "pipeline failed") || !strings.Contains(r.stderr, "deadline passed") {
			t.Errorf("%v: want a silent exit 0 with a reason under a passed deadline, got %+v", sh, r)
		}
	}
}

// A huge prompt is ranked on its first part, within the hook's time, and
// the log says so; a pretty-printed event is an event like any other.
func TestHugeAndPrettyEvents(t *testing.T) {
	w := newWorld(t)
	w.sessionStart("claude")
	w.sessionStart("opencode")
	huge := withPrompt(t, w.payload("claude-prompt.json"), "write a blameless postmortem for the outage, the log is below\n"+strings.Repeat("2026-01-02 10:00:00 ERROR checkout: upstream timeout\n", 200_000))
	if len(huge) < 10<<20 {
		t.Fatalf("prompt of %d bytes, want 10 MB", len(huge))
	}
	if ctx := claudeContext(t, w.hook("claude", "prompt", huge)); !strings.Contains(ctx, `"postmortem"`) {
		t.Fatalf("10 MB prompt: %s", ctx)
	}
	log, _ := os.ReadFile(filepath.Join(w.home, ".local", "state", "ski", "hook.log"))
	if !strings.Contains(string(log), "bytes; ranking its first 65536") {
		t.Fatalf("the log does not say the prompt was cut:\n%s", log)
	}
	var pretty bytes.Buffer
	json.Indent(&pretty, withPrompt(t, w.payload("opencode-prompt.json"), "write a blameless postmortem for the outage"), "", "  ")
	out := w.hook("opencode", "prompt", pretty.Bytes())
	if !strings.Contains(out, "writing/postmortem") {
		t.Fatalf("pretty-printed event: %q", out)
	}
}

// session-start trims a log grown past 1 MiB, but never through a symlink:
// the file a symlinked log points to keeps every byte.
func TestLogTrimNeverFollowsSymlink(t *testing.T) {
	w := newWorld(t)
	state := filepath.Join(w.home, ".local", "state", "ski")
	os.MkdirAll(state, 0o700)
	log := filepath.Join(state, "hook.log")
	big := bytes.Repeat([]byte("a line some other program keeps\n"), 40_000) // 1.3 MB

	precious := filepath.Join(t.TempDir(), "precious.log")
	os.WriteFile(precious, big, 0o600)
	os.Symlink(precious, log)
	w.hook("claude", "session-start", w.payload("claude-session-startup.json"))
	w.hook("claude", "prompt", w.payload("claude-prompt.json"))
	if got, _ := os.ReadFile(precious); !bytes.Equal(got, big) {
		t.Fatalf("the symlinked log's target changed: %d bytes, want %d", len(got), len(big))
	}

	os.Remove(log)
	os.WriteFile(log, big, 0o600)
	w.hook("claude", "session-start", w.payload("claude-session-startup.json"))
	if st, err := os.Stat(log); err != nil || st.Size() >= int64(len(big)) {
		t.Fatalf("the user's own log was not trimmed: %v, %v", st.Size(), err)
	}
}

// A FIFO in the log's place, with no one reading it, holds up nothing: the
// prompt hook, whose query starts the first background build, returns
// within its limit, the builder runs (its messages dropped), and no
// process of the world is left waiting to open the log.
func TestLogFIFONeverBlocks(t *testing.T) {
	w := newWorld(t)
	realModel(t, w)
	state := filepath.Join(w.home, ".local", "state", "ski")
	os.MkdirAll(state, 0o700)
	if err := syscall.Mkfifo(filepath.Join(state, "hook.log"), 0o600); err != nil {
		t.Fatal(err)
	}
	timedHook(t, w, "claude", "prompt", w.payload("claude-prompt.json"))
	timedHook(t, w, "claude", "session-start", w.payload("claude-session-startup.json"))
	// (waitBuilds would read the log.)
	for end := time.Now().Add(90 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		indexes, _ := filepath.Glob(filepath.Join(w.home, ".cache", "ski", "index", "*.skv"))
		left := processesOf(w.home)
		if len(indexes) == 2 && len(left) == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("after 90 s, indexes %v, and processes of the world still run: %v", indexes, left)
		}
	}
}

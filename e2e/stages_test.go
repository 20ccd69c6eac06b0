package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var stages = []string{"ski-scan", "ski-embed", "ski-rank", "ski-select", "ski-ledger", "ski-render"}

func TestHelpAndUsageErrors(t *testing.T) {
	w := newWorld(t)
	for _, s := range stages {
		r := w.stage(nil, s, "--help")
		title := strings.ToUpper(s[:1]) + s[1:]
		if r.code != 0 || !strings.HasPrefix(r.stdout, title) || !strings.Contains(r.stdout, "Usage") || r.stderr != "" {
			t.Errorf("%s --help: exit %d, stdout starts %.40q, stderr %q", s, r.code, r.stdout, r.stderr)
		}
		if first, _, _ := strings.Cut(r.stdout, "\n"); strings.Count(r.stdout, first) != 1 {
			t.Errorf("%s --help prints its manual more than once", s)
		}
		r = w.stage(nil, s, "--no-such-flag")
		if r.code != 2 || r.stdout != "" || !strings.HasPrefix(r.stderr, s+": ") {
			t.Errorf("%s --no-such-flag: exit %d, stdout %.40q, stderr %q", s, r.code, r.stdout, r.stderr)
		}
	}
}

func TestEmptyInputEmptyOutput(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{
		{"ski-embed", "--query"}, {"ski-rank"}, {"ski-select"}, {"ski-ledger", "record"}, {"ski-render", "--host", "claude"},
	} {
		r := w.stage(nil, args[0], args[1:]...)
		if r.code != 0 || r.stdout != "" {
			t.Errorf("%v on empty input: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

// The stages piped by hand, as the README shows, each emitting the
// documented record kinds.
func TestPipelineByHand(t *testing.T) {
	w := newWorld(t)
	idx := filepath.Join(t.TempDir(), "skills.skv")
	script := `set -euo pipefail
ski-scan --root "$ROOT" > scan.ndjson
ski-embed --index "$IDX" < scan.ndjson > index.ndjson
printf '%s\n' '{"session_id":"hand","prompt":"clean up this messy csv: duplicate rows and broken dates"}' |
	ski-embed --query --index "$IDX" > query.ndjson
ski-rank < query.ndjson > rank.ndjson
ski-select < rank.ndjson > select.ndjson
ski-ledger record < select.ndjson > record.ndjson
ski-render --host opencode < record.ndjson > payload.json
`
	dir := t.TempDir()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(w.env(), "PATH="+binDir+":"+os.Getenv("PATH"), "ROOT="+w.skills, "IDX="+idx)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pipeline: %v\n%s", err, out)
	}
	kinds := map[string]string{"scan.ndjson": "skill", "index.ndjson": "index", "query.ndjson": "query",
		"rank.ndjson": "candidate", "select.ndjson": "selection", "record.ndjson": "selection"}
	for file, kind := range kinds {
		b, _ := os.ReadFile(filepath.Join(dir, file))
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		var first struct{ Kind string }
		if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Kind != kind {
			t.Errorf("%s: first record kind %q, want %q (%v)", file, first.Kind, kind, err)
		}
	}
	sel, _ := os.ReadFile(filepath.Join(dir, "select.ndjson"))
	rec, _ := os.ReadFile(filepath.Join(dir, "record.ndjson"))
	if string(sel) != string(rec) {
		t.Error("ski-ledger record must pass its input through unchanged")
	}
	var p struct {
		Skills []string `json:"skills"`
		Inject string   `json:"inject"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "payload.json"))
	if err := json.Unmarshal(b, &p); err != nil || len(p.Skills) == 0 || p.Skills[0] != "data/csv-cleaning" {
		t.Fatalf("payload %s (%v)", b, err)
	}
}

// A project .ski.toml switches to body mode; a broken user config only warns.
func TestConfigThroughHook(t *testing.T) {
	w := newWorld(t)
	project := t.TempDir()
	os.Mkdir(filepath.Join(project, ".git"), 0o755)
	os.WriteFile(filepath.Join(project, ".ski.toml"), []byte("inject_mode = \"body\"\nchar_budget = 400\nnotify = true\n"), 0o644)
	os.MkdirAll(filepath.Join(w.home, ".config", "ski"), 0o755)
	os.WriteFile(filepath.Join(w.home, ".config", "ski", "config.toml"), []byte("this is = not toml ="), 0o644)

	var m map[string]any
	json.Unmarshal(w.payload("claude-prompt.json"), &m)
	m["cwd"] = project
	payload, _ := json.Marshal(m)
	w.sessionStart("claude")
	out := w.hook("claude", "prompt", payload)
	ctx := claudeContext(t, out)
	if !strings.Contains(ctx, "<skill name=\"postmortem\"") || !strings.Contains(ctx, "Base directory for this skill: "+filepath.Join(w.skills, "writing", "postmortem")) ||
		!strings.Contains(ctx, "template.md") || !strings.Contains(ctx, "truncated by ski") {
		t.Fatalf("body mode context: %s", ctx)
	}
	if !strings.Contains(out, `"systemMessage":"ski: injected postmortem"`) {
		t.Fatalf("notify: %s", out)
	}
	log, _ := os.ReadFile(filepath.Join(w.home, ".local", "state", "ski", "hook.log"))
	if !strings.Contains(string(log), "warning: config:") {
		t.Fatalf("bad config not reported in the hook log: %s", log)
	}
}

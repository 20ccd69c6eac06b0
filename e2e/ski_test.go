package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/tidwall/gjson"
)

// ski runs the front command in the world.
func (w *world) ski(args ...string) result {
	w.t.Helper()
	return w.run(nil, filepath.Join(binDir, "ski"), args...)
}

// skiRefresh builds the index of the world's home for the claude host.
func (w *world) skiRefresh() {
	w.t.Helper()
	r := w.run([]byte(`{"cwd":"`+w.home+`"}`), filepath.Join(binDir, "ski"), "embed", "--refresh")
	if r.code != 0 {
		w.t.Fatalf("ski embed --refresh: %d %s", r.code, r.stderr)
	}
}

// lexicalConfig makes the world rank with the lexical model, whose scores
// do not depend on an installed model, for golden output.
func lexicalConfig(t *testing.T, w *world) {
	t.Helper()
	writeFile(t, filepath.Join(w.home, ".config", "ski", "config.toml"), "model = \"lexical-v1\"\n")
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// golden compares got, with the world's paths and the durations of the
// moment replaced by placeholders, with testdata/front/NAME
// (SKI_UPDATE_GOLDEN=1 rewrites it).
func golden(t *testing.T, w *world, name, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, w.home, "$HOME")
	got = strings.ReplaceAll(got, binDir, "$BIN")
	got = strings.ReplaceAll(got, repo, "$REPO")
	got = strings.ReplaceAll(got, cli.Version(), "$VERSION")
	got = regexp.MustCompile(`\b\d+[smhd] ago`).ReplaceAllString(got, "N ago")
	got = regexp.MustCompile(`index/(claude|opencode)-[0-9a-f]{16}\.skv`).ReplaceAllString(got, "index/$1-KEY.skv")
	got = regexp.MustCompile(`pid \d+`).ReplaceAllString(got, "pid N")
	got = regexp.MustCompile(`\d+\.\d kB`).ReplaceAllString(got, "N kB")
	path := filepath.Join(repo, "testdata", "front", name)
	if os.Getenv("SKI_UPDATE_GOLDEN") == "1" {
		writeFile(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (SKI_UPDATE_GOLDEN=1 writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (SKI_UPDATE_GOLDEN=1 rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// ski STAGE runs the stage beside it: same output, same exit status, and
// --version names the stage.
func TestSkiRunsTheStageBesideIt(t *testing.T) {
	w := newWorld(t)
	direct := w.stage(nil, "ski-scan", "--root", w.skills)
	front := w.ski("scan", "--root", w.skills)
	if front.code != 0 || front.stdout != direct.stdout || direct.stdout == "" {
		t.Fatalf("ski scan: code %d, output differs from ski-scan's: %q", front.code, front.stderr)
	}
	if r := w.ski("rank", "--top", "x"); r.code != cli.ExitUsage || !strings.Contains(r.stderr, "ski-rank:") {
		t.Fatalf("ski rank with a bad flag: code %d, stderr %q", r.code, r.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--version"}, "ski " + cli.Version()},
		{[]string{"version"}, "ski " + cli.Version()},
		{[]string{"doctor", "--version"}, "ski doctor " + cli.Version()},
		{[]string{"why", "--version"}, "ski why " + cli.Version()},
		{[]string{"rank", "--version"}, "ski-rank " + cli.Version()},
	} {
		if r := w.ski(c.args...); r.code != 0 || strings.TrimSpace(r.stdout) != c.want {
			t.Errorf("ski %v: code %d, %q, want %q", c.args, r.code, r.stdout, c.want)
		}
	}
	if r := w.ski("frobnicate"); r.code != cli.ExitUsage || !strings.Contains(r.stderr, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: code %d, stderr %q", r.code, r.stderr)
	}
}

// ski why shows every candidate with its score parts, band, decision and
// the gate's reason; --json carries the same for machines. The first run,
// before any index, builds it and answers.
func TestSkiWhy(t *testing.T) {
	w := newWorld(t)
	lexicalConfig(t, w)
	r := w.ski("why", "--top", "4", "the helm chart fails to lint")
	if r.code != 0 {
		t.Fatalf("ski why: code %d, stderr %q", r.code, r.stderr)
	}
	golden(t, w, "why.golden", r.stdout)

	r = w.ski("why", "--json", "--top", "3", "the helm chart fails to lint")
	var rep struct {
		Model      string
		Gates      map[string]any
		Candidates []struct {
			ID, Decision, Band, Reason string
			Why                        []string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 {
		t.Fatalf("ski why --json: code %d, %v: %s", r.code, err, r.stdout)
	}
	c := rep.Candidates
	if rep.Model != "lexical-v1" || len(c) != 3 || c[0].ID != "k8s/helm-chart" || c[0].Decision != "inject" ||
		c[0].Band != "inject" || len(c[0].Why) == 0 || c[1].Decision != "drop" || rep.Gates["max_skills"] != 2.0 {
		t.Fatalf("ski why --json: %+v", rep)
	}
	if r := w.ski("why"); r.code != cli.ExitUsage {
		t.Errorf("ski why without a prompt: code %d", r.code)
	}
}

// On a fresh machine, ski why builds the project's index with the model
// before it ranks, and answers as the hook will; with no skills anywhere it
// says so and where it looked.
func TestSkiWhyFirstRun(t *testing.T) {
	w := newWorld(t)
	realModel(t, w)
	r := w.ski("why", "--json", postmortemPrompt)
	var rep struct {
		Model      string
		Candidates []struct{ ID, Decision string }
		Warnings   []string
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 {
		t.Fatalf("ski why: code %d, %v: %s%s", r.code, err, r.stdout, r.stderr)
	}
	if rep.Model != "bge-small-en-v1.5-q" || len(rep.Candidates) == 0 || rep.Candidates[0].ID != "writing/postmortem" ||
		rep.Candidates[0].Decision != "inject" || len(rep.Warnings) != 0 {
		t.Fatalf("ski why on a fresh machine: %+v", rep)
	}

	empty := newWorld(t)
	realModel(t, empty)
	empty.skills = ""
	empty.extra = append(empty.extra, "SKI_ROOTS=")
	r = empty.ski("why", postmortemPrompt)
	want := "warning: no skills: ski found none for claude in " + filepath.Join(empty.home, ".claude", "skills")
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Fatalf("ski why with no skills: code %d, want %q in:\n%s%s", r.code, want, r.stdout, r.stderr)
	}
	r = empty.ski("why", "--host", "opencode", postmortemPrompt)
	want = "warning: no skills: ski found none for opencode in " + filepath.Join(empty.home, ".opencode", "skill")
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Fatalf("ski why --host opencode with no skills: code %d, want %q in:\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}

// writeLedger writes a session ledger with the given events, as
// ski-ledger would.
func writeLedger(t *testing.T, w *world, session string, events [][3]string) {
	t.Helper()
	type ev struct {
		At     string `json:"at"`
		Event  string `json:"event"`
		ID     string `json:"id,omitempty"`
		Source string `json:"source,omitempty"`
	}
	l := map[string]any{"version": 1, "session_id": session, "loaded": map[string]any{}, "recommended": map[string]any{}}
	var evs []ev
	last := ""
	for _, e := range events {
		src := map[string]string{"inject": "ski", "load": "model", "host-load": "user"}[e[1]]
		evs = append(evs, ev{e[0], e[1], e[2], src})
		last = e[0]
	}
	l["events"], l["updated"] = evs, last
	b, _ := json.Marshal(l)
	writeFile(t, filepath.Join(w.home, ".local", "state", "ski", "sessions", session+".json"), string(b))
}

// ski status: roots and skill counts with error and warning records, the
// index and a running build's progress, the server, the last session.
func TestSkiStatus(t *testing.T) {
	w := newWorld(t)
	lexicalConfig(t, w)
	skills := t.TempDir()
	if err := copyTree(filepath.Join(repo, "testdata", "skills", "k8s"), filepath.Join(skills, "k8s"), false); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(skills, "long", "SKILL.md"), "---\nname: long\ndescription: "+strings.Repeat("word ", 220)+"\n---\nbody\n")
	writeFile(t, filepath.Join(skills, "broken", "SKILL.md"), "no frontmatter here\n")
	// A second root's skill of the same name as the first's is shadowed.
	second := t.TempDir()
	writeFile(t, filepath.Join(second, "helm", "SKILL.md"), "---\nname: helm-chart\ndescription: Another helm chart skill.\n---\nbody\n")
	w.skills = skills + string(os.PathListSeparator) + second

	r := w.ski("status")
	if r.code != 0 {
		t.Fatalf("ski status: code %d, stderr %q", r.code, r.stderr)
	}
	got := strings.ReplaceAll(strings.ReplaceAll(r.stdout, skills, "$SKILLS"), second, "$SECOND")
	golden(t, w, "status-new.golden", got)

	// An index built, a build running (its progress file, as the builder
	// writes it), and a session.
	w.skiRefresh()
	idx, _ := filepath.Glob(filepath.Join(w.home, ".cache", "ski", "index", "claude-*.skv"))
	if len(idx) != 1 {
		t.Fatalf("index files: %v", idx)
	}
	writeFile(t, idx[0]+".progress", fmt.Sprintf(`{"pid":%d,"model":"bge-small-en-v1.5-q","total":200,"done":50,"started":"2026-11-24T10:00:00Z","updated":"2026-11-24T10:01:00Z"}`, os.Getpid()))
	writeLedger(t, w, "s-1", [][3]string{
		{"2026-11-24T10:00:00Z", "inject", "k8s/helm-chart"},
		{"2026-11-24T10:01:00Z", "recommend", "long"},
		{"2026-11-24T10:02:00Z", "load", "k8s/helm-chart"},
	})
	r = w.ski("status")
	got = strings.ReplaceAll(strings.ReplaceAll(r.stdout, skills, "$SKILLS"), second, "$SECOND")
	golden(t, w, "status-built.golden", got)

	// A build whose process is gone says so.
	writeFile(t, idx[0]+".progress", `{"pid":999999999,"model":"m","total":10,"done":4}`)
	if r := w.ski("status"); !strings.Contains(r.stdout, "no build running (one stopped at 4 of 10 skills, 40%") {
		t.Errorf("stopped build: %s", r.stdout)
	}
}

// ski stats and ski history read every session's ledger.
func TestSkiStatsAndHistory(t *testing.T) {
	w := newWorld(t)
	lexicalConfig(t, w)
	if r := w.ski("stats"); r.code != 0 || !strings.Contains(r.stdout, "no sessions recorded yet") {
		t.Fatalf("no sessions: %d %q", r.code, r.stdout)
	}
	for i := range 3 {
		writeLedger(t, w, fmt.Sprintf("s-%d", i), [][3]string{
			{fmt.Sprintf("2026-11-2%dT10:00:00Z", i), "inject", "writing/postmortem"},
			{fmt.Sprintf("2026-11-2%dT10:00:01Z", i), "inject", "k8s/helm-chart"},
			{fmt.Sprintf("2026-11-2%dT10:05:00Z", i), "load", "k8s/helm-chart"},
			{fmt.Sprintf("2026-11-2%dT10:06:00Z", i), "recommend", "data/csv-cleaning"},
		})
	}
	// Ledgers of before the suggestion band ("recommend" events) and of now.
	writeLedger(t, w, "s-9", [][3]string{{"2026-11-23T09:00:00Z", "rearm", ""}, {"2026-11-23T09:01:00Z", "host-load", "release/changelog"},
		{"2026-11-23T09:02:00Z", "load", "python/uv-setup"}, {"2026-11-23T09:03:00Z", "suggest", "docs/pdf-tools"},
		{"2026-11-23T09:04:00Z", "load", "docs/pdf-tools"}})
	// Four sessions are too few for advice: most skills are unused yet.
	r := w.ski("stats")
	if r.code != 0 {
		t.Fatalf("ski stats: %d %s", r.code, r.stderr)
	}
	golden(t, w, "stats-early.golden", r.stdout)
	for i := range 16 {
		writeLedger(t, w, fmt.Sprintf("t-%d", i), [][3]string{{fmt.Sprintf("2026-11-01T10:%02d:00Z", i), "rearm", ""}})
	}
	r = w.ski("stats")
	if r.code != 0 {
		t.Fatalf("ski stats: %d %s", r.code, r.stderr)
	}
	golden(t, w, "stats.golden", r.stdout)
	r = w.ski("history", "--limit", "6")
	if r.code != 0 {
		t.Fatalf("ski history: %d %s", r.code, r.stderr)
	}
	golden(t, w, "history.golden", r.stdout)
}

// enablePlugin turns ski's Claude Code plugin on in the world's settings.
func enablePlugin(t *testing.T, w *world) {
	t.Helper()
	path := filepath.Join(w.home, ".claude", "settings.json")
	b, _ := os.ReadFile(path)
	m := map[string]any{}
	json.Unmarshal(b, &m)
	m["enabledPlugins"] = map[string]bool{"ski@ski": true}
	b, _ = json.Marshal(m)
	writeFile(t, path, string(b))
}

// With both the plugin and install.sh's hooks, each hook runs once: the
// plugin's copy stands down for install.sh's, and ski-install run with the
// plugin enabled adds no hooks (and takes out its old ones).
func TestPluginAndInstallRunHooksOnce(t *testing.T) {
	w := healthyWorld(t)
	lexicalConfig(t, w)
	prompt := withPrompt(t, w.payload("claude-prompt.json"), "write a postmortem for the outage")
	hook := filepath.Join(repo, "scripts", "hook-claude.sh")
	if out := w.run(prompt, "sh", hook, "prompt").stdout; !strings.Contains(out, "postmortem") {
		t.Fatalf("install.sh's hook: %q", out)
	}
	enablePlugin(t, w)
	if r := w.run(prompt, "sh", hook, "prompt", "plugin"); r.code != 0 || r.stdout != "" {
		t.Fatalf("the plugin's copy should stand down: %d %q", r.code, r.stdout)
	}
	if r := w.ski("doctor"); !strings.Contains(doctorLine(t, r.stdout, "claude hooks"), "stands down for them") || r.code != 0 {
		t.Fatalf("doctor: %d\n%s", r.code, r.stdout)
	}
	// Installing again with the plugin enabled leaves the hooks to it.
	r := w.ski("install", "--host", "claude", "--scripts", filepath.Join(repo, "scripts"))
	if r.code != 0 || !strings.Contains(r.stderr, "the ski plugin ski@ski is enabled") {
		t.Fatalf("ski install with the plugin: %d %s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(filepath.Join(w.home, ".claude", "settings.json"))
	if strings.Contains(string(b), "hook-claude.sh") {
		t.Fatalf("settings.json still has ski's hooks: %s", b)
	}
	// (A new prompt: the session already has the postmortem skill.)
	helm := withPrompt(t, w.payload("claude-prompt.json"), "the helm chart fails to lint")
	if out := w.run(helm, "sh", hook, "prompt", "plugin").stdout; !strings.Contains(out, "helm-chart") {
		t.Fatalf("the plugin's hook should run now: %q", out)
	}
	if r := w.ski("doctor"); doctorLine(t, r.stdout, "claude hooks") != "ok    claude hooks    the plugin ski@ski" {
		t.Fatalf("doctor: %s", r.stdout)
	}
}

// installThenRemoveScript wires host to a copy of the hook scripts, then
// deletes the copy of the host's script.
func installThenRemoveScript(t *testing.T, w *world, host string) {
	t.Helper()
	scripts := t.TempDir()
	if err := copyTree(filepath.Join(repo, "scripts"), scripts, false); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(scripts, "hook-"+host+".sh")
	os.Chmod(script, 0o755)
	if r := w.ski("install", "--host", host, "--scripts", scripts); r.code != 0 {
		t.Fatal(r.stderr)
	}
	os.Remove(script)
}

// doctorLine returns the line of check name in ski doctor's output.
func doctorLine(t *testing.T, out, name string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 6 && strings.HasPrefix(l[6:], name+" ") {
			return l
		}
	}
	t.Fatalf("no %q line in:\n%s", name, out)
	return ""
}

// healthyWorld is an install ski doctor finds nothing wrong with: ski
// first on PATH, hooks installed once, the index built.
func healthyWorld(t *testing.T) *world {
	w := newWorld(t)
	lexicalConfig(t, w)
	w.extra = append(w.extra, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if r := w.ski("install", "--scripts", filepath.Join(repo, "scripts")); r.code != 0 {
		t.Fatalf("ski install: %d %s", r.code, r.stderr)
	}
	w.skiRefresh()
	return w
}

// ski doctor on a healthy install passes every check and prints the config
// in force with each value's source; with each check broken in turn it
// names the problem and the fix, and exits 1 when the problem breaks ski.
func TestSkiDoctor(t *testing.T) {
	w := healthyWorld(t)
	w.extra = append(w.extra, "SKI_HOOK_TIMEOUT=7")
	writeFile(t, filepath.Join(w.home, "proj", ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(w.home, "proj", ".ski.toml"), "max_skills = 1\n")
	r := w.ski("doctor")
	if r.code != 0 || strings.Contains(r.stdout, "FAIL") {
		t.Fatalf("healthy: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The config values are padded to a column; paths of the moment vary
	// in length.
	golden(t, w, "doctor-healthy.golden", regexp.MustCompile(` +`).ReplaceAllString(r.stdout, " "))
	r = w.ski("doctor", "--cwd", filepath.Join(w.home, "proj"))
	if !regexp.MustCompile(`max_skills +1 +project file .*/proj/\.ski\.toml`).MatchString(r.stdout) {
		t.Errorf("project file source:\n%s", r.stdout)
	}

	for _, c := range []struct {
		name  string
		setup func(t *testing.T, w *world)
		check string
		code  int
		want  []string
	}{
		{"another ski first on PATH", func(t *testing.T, w *world) {
			other := t.TempDir()
			writeFile(t, filepath.Join(other, "ski"), "#!/bin/sh\necho skill-inject 0.9.0\n")
			os.Chmod(filepath.Join(other, "ski"), 0o755)
			w.extra = append(w.extra, "PATH="+other+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		}, "ski on PATH", 1, []string{"FAIL", "comes first on PATH and is another program", "fix: put"}},
		{"another copy of ski first on PATH", func(t *testing.T, w *world) {
			other := t.TempDir()
			build := exec.Command("go", "build", "-ldflags", "-X github.com/skill-inject/ski/internal/cli.Commit=another-copy", "-o", other, "./cmd/ski")
			build.Dir = repo
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("build: %v\n%s", err, out)
			}
			w.extra = append(w.extra, "PATH="+other+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		}, "ski on PATH", 0, []string{"warn", "is another copy of ski (ski " + cli.Release + " (commit another-copy))", "this one is " + filepath.Join(binDir, "ski") + " (" + cli.Version() + ")", "fix: put"}},
		{"a stage missing", nil, "stages", 1, []string{"FAIL", "missing beside ski", "ski-rank", "fix: scripts/install.sh"}},
		{"another stage first on PATH", func(t *testing.T, w *world) {
			other := t.TempDir()
			writeFile(t, filepath.Join(other, "ski-rank"), "#!/bin/sh\nexit 0\n")
			os.Chmod(filepath.Join(other, "ski-rank"), 0o755)
			w.extra = append(w.extra, "PATH="+other+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
		}, "stages", 0, []string{"warn", "PATH finds other stages", "/ski-rank", "fix: put ~/.local/bin"}},
		{"an unknown config key", func(t *testing.T, w *world) {
			writeFile(t, filepath.Join(w.home, ".config", "ski", "config.toml"), "model = \"lexical-v1\"\nmax_skill = 3\n")
		}, "config", 1, []string{"FAIL", "unknown key max_skill (did you mean max_skills?)", "fix:"}},
		{"model files missing", func(t *testing.T, w *world) {
			writeFile(t, filepath.Join(w.home, ".config", "ski", "config.toml"), "model = \"bge-small-en-v1.5-q\"\n")
			w.extra = append(w.extra, "SKI_MODEL_DIR="+t.TempDir())
		}, "model files", 1, []string{"FAIL", "model.onnx missing", "fix: scripts/setup.sh, or ski embed --fetch bge-small-en-v1.5-q"}},
		{"model does not load", func(t *testing.T, w *world) {
			writeFile(t, filepath.Join(w.home, ".config", "ski", "config.toml"), "model = \"bge-small-en-v1.5-q\"\n")
			w.extra = append(w.extra, "SKI_MODEL_DIR="+t.TempDir())
		}, "model loads", 1, []string{"FAIL", "did not load", "falls back to lexical-v1", "fix:"}},
		{"index out of date", func(t *testing.T, w *world) {
			skills := t.TempDir()
			if err := copyTree(w.skills, skills, false); err != nil {
				t.Fatal(err)
			}
			w.skills = skills
			w.skiRefresh()
			writeFile(t, filepath.Join(skills, "new", "SKILL.md"), "---\nname: new\ndescription: A new skill.\n---\n")
		}, "index", 0, []string{"warn", "out of date", "| ski embed --refresh"}},
		{"index missing", func(t *testing.T, w *world) {
			os.RemoveAll(filepath.Join(w.home, ".cache", "ski", "index"))
		}, "index", 0, []string{"warn", "not built yet", "| ski embed --refresh"}},
		{"embed server's run directory unsafe", func(t *testing.T, w *world) {
			writeFile(t, filepath.Join(w.home, ".config", "ski", "config.toml"), "model = \"bge-small-en-v1.5-q\"\n")
			run := t.TempDir()
			os.MkdirAll(filepath.Join(run, "ski"), 0o777)
			os.Chmod(filepath.Join(run, "ski"), 0o777)
			w.extra = append(w.extra, "XDG_RUNTIME_DIR="+run)
		}, "embed server", 1, []string{"FAIL", "unusable", "fix:"}},
		{"claude hooks and plugin both", func(t *testing.T, w *world) {
			enablePlugin(t, w)
			os.Remove(filepath.Join(w.home, ".local", "share", "ski", "claude-hooks-installed"))
		}, "claude hooks", 1, []string{"FAIL", "installed twice", "ski@ski", "fix: ski install --host claude"}},
		{"plugin standing down for hooks that are gone", func(t *testing.T, w *world) {
			enablePlugin(t, w)
			path := filepath.Join(w.home, ".claude", "settings.json")
			writeFile(t, path, `{"enabledPlugins":{"ski@ski":true}}`)
		}, "claude hooks", 1, []string{"FAIL", "stands down for hooks", "that are gone", "fix: ski install --host claude"}},
		{"claude hook missing", func(t *testing.T, w *world) {
			path := filepath.Join(w.home, ".claude", "settings.json")
			b, _ := os.ReadFile(path)
			var m map[string]map[string]any
			json.Unmarshal(b, &m)
			delete(m["hooks"], "PostToolUse")
			b, _ = json.Marshal(m)
			writeFile(t, path, string(b))
		}, "claude hooks", 1, []string{"FAIL", "not once each", "PostToolUse 0", "fix: ski install --host claude"}},
		{"claude hook script gone", func(t *testing.T, w *world) { installThenRemoveScript(t, w, "claude") },
			"claude hooks", 1, []string{"FAIL", "hook-claude.sh, which is missing", "fix: scripts/install.sh claude"}},
		{"opencode hook script gone", func(t *testing.T, w *world) { installThenRemoveScript(t, w, "opencode") },
			"opencode plugin", 1, []string{"FAIL", "hook-opencode.sh, which is missing", "fix: scripts/install.sh opencode"}},
		{"no host wired", func(t *testing.T, w *world) {
			if r := w.ski("install", "--uninstall"); r.code != 0 {
				t.Fatal(r.stderr)
			}
		}, "opencode plugin", 1, []string{"FAIL", "not installed", "fix: scripts/install.sh opencode"}},
		{"a skill breaking the host's rules", func(t *testing.T, w *world) {
			skills := t.TempDir()
			if err := copyTree(w.skills, skills, false); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(skills, "long", "SKILL.md"), "---\nname: long\ndescription: "+strings.Repeat("word ", 220)+"\n---\n")
			w.skills = skills
			w.skiRefresh()
		}, "skills", 0, []string{"warn", "1 warnings", "fix: ski status lists each"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := healthyWorld(t)
			ski := filepath.Join(binDir, "ski")
			if c.setup != nil {
				c.setup(t, w)
			} else {
				// A copy of ski whose stages are linked beside it, but ski-rank.
				dir := t.TempDir()
				ski = filepath.Join(dir, "ski")
				b, err := os.ReadFile(filepath.Join(binDir, "ski"))
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(ski, b, 0o755)
				names, _ := filepath.Glob(filepath.Join(binDir, "ski-*"))
				for _, n := range names {
					if filepath.Base(n) != "ski-rank" {
						os.Symlink(n, filepath.Join(dir, filepath.Base(n)))
					}
				}
				w.extra = append(w.extra, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
			}
			r := w.run(nil, ski, "doctor")
			line := doctorLine(t, r.stdout, c.check)
			for _, want := range c.want {
				if !strings.Contains(line, want) {
					t.Errorf("%s line lacks %q: %s", c.check, want, line)
				}
			}
			if r.code != c.code {
				t.Errorf("exit %d, want %d\n%s", r.code, c.code, r.stdout)
			}
		})
	}
}

// With the real model, ski doctor checks the model's files by sha256 and
// loads it.
func TestSkiDoctorRealModel(t *testing.T) {
	w := healthyWorld(t)
	realModel(t, w)
	writeFile(t, filepath.Join(w.home, ".config", "ski", "config.toml"), "model = \"bge-small-en-v1.5-q\"\n")
	r := w.ski("doctor")
	for _, name := range []string{"model files", "model loads"} {
		if line := doctorLine(t, r.stdout, name); !strings.HasPrefix(line, "ok ") {
			t.Errorf("%s: %s", name, line)
		}
	}
	// Model files in place, but no runtime to load them with.
	broken := w.run(nil, "env", "ONNXRUNTIME_SHARED_LIBRARY_PATH="+filepath.Join(t.TempDir(), "libonnxruntime.so"), filepath.Join(binDir, "ski"), "doctor")
	if files, load := doctorLine(t, broken.stdout, "model files"), doctorLine(t, broken.stdout, "model loads"); !strings.HasPrefix(files, "ok ") ||
		!strings.HasPrefix(load, "FAIL") || !strings.Contains(load, "falls back to lexical-v1") || broken.code != 1 {
		t.Errorf("no runtime: %d\n%s\n%s", broken.code, files, load)
	}
	if line := doctorLine(t, r.stdout, "embed server"); !strings.Contains(line, "not running") {
		t.Errorf("no server yet: %s", line)
	}
	// A server started for this install answers ski's handshake (the
	// world's SKI_EMBED_SERVER=0 would keep it from starting).
	if r := w.run(nil, "env", "SKI_EMBED_SERVER=1", filepath.Join(binDir, "ski"), "embed", "--serve", "--detach"); r.code != 0 {
		t.Fatalf("ski embed --serve --detach: %d %s", r.code, r.stderr)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		line := doctorLine(t, w.ski("doctor").stdout, "embed server")
		if strings.HasPrefix(line, "ok ") && strings.Contains(line, "running for bge-small-en-v1.5-q") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server: %s", line)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ski-scan's warning records pass through ski-embed --index, which indexes
// the skill they are about.
func TestWarningRecordsPassThroughTheIndex(t *testing.T) {
	w := newWorld(t)
	lexicalConfig(t, w)
	skills := t.TempDir()
	writeFile(t, filepath.Join(skills, "long", "SKILL.md"), "---\nname: long\ndescription: "+strings.Repeat("word ", 220)+"\n---\nbody\n")
	scan := w.stage(nil, "ski-scan", "--root", skills)
	if !strings.Contains(scan.stdout, `"kind":"warning"`) {
		t.Fatalf("no warning record: %s", scan.stdout)
	}
	r := w.stage([]byte(scan.stdout), "ski-embed", "--index", filepath.Join(w.home, "x.skv"))
	if r.code != 0 || !strings.Contains(r.stdout, `"count":1`) {
		t.Fatalf("ski-embed --index: %d %s %s", r.code, r.stdout, r.stderr)
	}
}

// A skill the model may not invoke, named by the user, reaches the model as
// its body through the hook, never as a directive to the Skill tool.
func TestMentionedSkillTheModelMayNotInvoke(t *testing.T) {
	w := newWorld(t)
	lexicalConfig(t, w)
	w.sessionStart("claude")
	ctx := claudeContext(t, w.hook("claude", "prompt", withPrompt(t, w.payload("claude-prompt.json"), "@deploy-prod ship the release")))
	if !strings.Contains(ctx, `<skill name="deploy-prod"`) || strings.Contains(ctx, "Skill tool (skill: \"deploy-prod\")") {
		t.Fatalf("context: %s", ctx)
	}
}

// "/name" of a skill kept out of the host's / menu (user-invocable: false)
// loads nothing in the host, so ski brings the skill in.
func TestSlashOfSkillHiddenFromTheMenu(t *testing.T) {
	w := newWorld(t)
	lexicalConfig(t, w)
	skills := t.TempDir()
	if err := copyTree(w.skills, skills, false); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(skills, "style", "SKILL.md"), "---\nname: house-style\ndescription: The team's house style for Go code.\nuser-invocable: false\n---\nUse gofmt.\n")
	w.skills = skills
	w.sessionStart("claude")
	ctx := claudeContext(t, w.hook("claude", "prompt", withPrompt(t, w.payload("claude-prompt.json"), "/house-style check main.go")))
	if !strings.Contains(ctx, `"house-style"`) {
		t.Fatalf("context: %s", ctx)
	}
	// A user-invocable skill's /name stays the host's.
	out := w.hook("claude", "prompt", withPrompt(t, w.payload("claude-prompt.json"), "/postmortem"))
	if strings.Contains(out, "postmortem") {
		t.Fatalf("/postmortem: %s", out)
	}
}

// The version the commands print is the one the plugin manifests declare.
func TestVersionMatchesThePluginManifests(t *testing.T) {
	for _, c := range []struct{ file, path string }{
		{".claude-plugin/plugin.json", "version"},
		{".claude-plugin/marketplace.json", "plugins.0.version"},
	} {
		b, err := os.ReadFile(filepath.Join(repo, c.file))
		if err != nil {
			t.Fatal(err)
		}
		m := gjson.GetBytes(b, c.path).Str
		if m != cli.Release {
			t.Errorf("%s %s is %v, the commands say %s", c.file, c.path, m, cli.Release)
		}
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/ledger"
)

// TestMain runs the command itself when the test binary is re-executed
// with SKI_LEDGER_TEST_MAIN=1, so tests can start real processes.
func TestMain(m *testing.M) {
	if os.Getenv("SKI_LEDGER_TEST_MAIN") == "1" {
		os.Exit(cli.Main(name, cli.OSEnv(), run))
	}
	os.Exit(m.Run())
}

// result is one run of the command.
type result struct {
	code           int
	stdout, stderr string
}

// world is a private environment: HOME, XDG directories and a state dir.
type world struct {
	t    *testing.T
	home string
	vars map[string]string
}

func newWorld(t *testing.T) *world {
	home := t.TempDir()
	return &world{t: t, home: home, vars: map[string]string{
		"HOME":            home,
		"XDG_STATE_HOME":  filepath.Join(home, "state"),
		"XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_DATA_HOME":   filepath.Join(home, "data"),
		"XDG_CACHE_HOME":  filepath.Join(home, "cache"),
	}}
}

func (w *world) store() *ledger.Store {
	return &ledger.Store{Dir: ledger.Dir(environ.FromMap(w.vars).Dirs.State)}
}

// run runs the command in-process.
func (w *world) run(stdin string, args ...string) result {
	var out, errb bytes.Buffer
	env := cli.Env{
		Args:    args,
		Stdin:   strings.NewReader(stdin),
		Stdout:  &out,
		Stderr:  &errb,
		Environ: environ.FromMap(w.vars),
	}
	code := cli.Main(name, env, run)
	return result{code, out.String(), errb.String()}
}

// exec runs the command as a separate process (the re-executed test binary).
func (w *world) exec(stdin string, args ...string) result {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = []string{"SKI_LEDGER_TEST_MAIN=1", "PATH=" + os.Getenv("PATH")}
	for k, v := range w.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

func (w *world) load(session string) *ledger.Ledger {
	w.t.Helper()
	l, err := w.store().Load(session)
	if err != nil {
		w.t.Fatal(err)
	}
	return l
}

func sel(session, id, decision string) string {
	return fmt.Sprintf(`{"kind":"selection","query_id":"q1","session_id":%q,"cwd":"/p","host":"claude","rank":1,"id":%q,"name":%q,"invoke":%q,"path":"/x/SKILL.md","dir":"/x","score":0.71,"cosine":0.6,"boost":0.11,"top_score":0.71,"mention":"","why":["desc <&> match"],"disable_model_invocation":false,"auto_inject":false,"affinity":null,"decision":%q,"reason":"above threshold"}`,
		session, id, id, id, decision)
}

func TestRecordPassesInputThrough(t *testing.T) {
	w := newWorld(t)
	in := sel("s1", "a", "inject") + "\r\n\n" +
		sel("s1", "b", "suggest") + "\n" +
		sel("s1", "c", "host-loads") + "\n" +
		sel("s1", "d", "drop") // no final newline
	r := w.run(in, "record")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := sel("s1", "a", "inject") + "\n" + sel("s1", "b", "suggest") + "\n" +
		sel("s1", "c", "host-loads") + "\n" + sel("s1", "d", "drop") + "\n"
	if r.stdout != want {
		t.Errorf("stdout is not the input's records unchanged, one a line:\n got %q\nwant %q", r.stdout, want)
	}
	l := w.load("s1")
	if e, ok := l.Loaded("a"); !ok || e.Source != ledger.SourceSki {
		t.Errorf("a: %+v %v", e, ok)
	}
	if e, ok := l.Loaded("c"); !ok || e.Source != ledger.SourceUser {
		t.Errorf("c: %+v %v", e, ok)
	}
	if !l.Suggested("b") {
		t.Error("b not suggested")
	}
	if _, ok := l.Loaded("d"); ok {
		t.Error("dropped d recorded")
	}
	// Default location: $XDG_STATE_HOME/ski/sessions/s1.json.
	if _, err := os.Stat(filepath.Join(w.vars["XDG_STATE_HOME"], "ski", "sessions", "s1.json")); err != nil {
		t.Error(err)
	}
}

func TestRecordStateDir(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	for _, args := range [][]string{{"record", "--state-dir", dir}, {"--state-dir", dir, "record"}} {
		if r := w.run(sel("s", "a", "inject")+"\n", args...); r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "sessions", "s.json")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(w.vars["XDG_STATE_HOME"], "ski")); !os.IsNotExist(err) {
		t.Error("--state-dir ignored")
	}
}

func TestRecordEmptyInput(t *testing.T) {
	w := newWorld(t)
	r := w.run("", "record")
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("%+v", r)
	}
}

func TestRecordBadInput(t *testing.T) {
	good := sel("s1", "new", "inject") + "\n"
	tests := []struct{ name, line, want string }{
		{"garbage", "this is not json\n", "ski-ledger: <stdin>: line 2: not a JSON object"},
		{"invalid utf-8", "{\"kind\":\"selection\",\"id\":\"\xc3\x28\"}\n", "ski-ledger: <stdin>: line 2: invalid UTF-8 in record"},
		{"no session", `{"kind":"selection","id":"x","decision":"inject"}` + "\n", "ski-ledger: <stdin>: line 2: selection has no session_id"},
		{"other kind", `{"kind":"skill","id":"x","session_id":"s1"}` + "\n", `ski-ledger: <stdin>: line 2: kind "skill", want "selection"`},
		{"truncated", `{"kind":"selection",` + "\n", "ski-ledger: <stdin>: line 2: not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			if r := w.run(sel("s1", "old", "inject")+"\n", "record"); r.code != 0 {
				t.Fatal(r.stderr)
			}
			path, _ := w.store().Path("s1")
			before, _ := os.ReadFile(path)
			r := w.run(good+tt.line+good, "record")
			if r.code != 1 {
				t.Errorf("exit %d, want 1", r.code)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			if !strings.HasPrefix(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr %q, want one line starting %q", r.stderr, tt.want)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Error("ledger changed")
			}
		})
	}
}

func TestRecordLongLine(t *testing.T) {
	w := newWorld(t)
	long := strings.Replace(sel("s", "a", "inject"), `"above threshold"`, `"`+strings.Repeat("x", 2<<20)+`"`, 1) + "\n"
	if r := w.run(long, "record"); r.code != 0 || r.stdout != long {
		t.Errorf("exit %d, stderr %s, %d bytes out", r.code, r.stderr, len(r.stdout))
	}
	r := w.run(long, "record", "--max-line", "1000")
	if r.code != 1 || !strings.Contains(r.stderr, "line 1: record exceeds 1000 bytes") {
		t.Errorf("%+v", r.stderr)
	}
}

// Twenty processes record a different skill in one session at once; none
// may lose another's update.
func TestRecordConcurrentProcesses(t *testing.T) {
	w := newWorld(t)
	const n = 20
	var wg sync.WaitGroup
	results := make([]result, n)
	for i := range n {
		wg.Go(func() {
			results[i] = w.exec(sel("shared", fmt.Sprint("skill-", i), "inject")+"\n", "record")
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Fatalf("process %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	l := w.load("shared")
	if got := len(l.LoadedIDs()); got != n {
		t.Fatalf("%d skills recorded, want %d: %v", got, n, l.LoadedIDs())
	}
	for i := range n {
		if _, ok := l.Loaded(fmt.Sprint("skill-", i)); !ok {
			t.Errorf("skill-%d lost", i)
		}
	}
	if len(l.Events()) != n {
		t.Errorf("%d events", len(l.Events()))
	}
}

// skillTree writes SKILL.md files under a fresh root and returns it.
func skillTree(t *testing.T, names ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, n := range names {
		writeSkill(t, filepath.Join(root, n), n)
	}
	return root
}

func writeSkill(t *testing.T, dir, name string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "SKILL.md")
	body := fmt.Sprintf("---\nname: %s\ndescription: Use when testing %s.\n---\n# %s\n", name, name, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestObserve(t *testing.T) {
	root := skillTree(t, "demo", "lint")
	outside := writeSkill(t, filepath.Join(t.TempDir(), "stray"), "stray")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	demo := filepath.Join(root, "demo", "SKILL.md")
	project := t.TempDir()

	// A Claude plugin, for "plugin:name" (SKI_ROOTS would replace plugin roots).
	plugin := t.TempDir()
	writeSkill(t, filepath.Join(plugin, "skills", "fmt"), "fmt")
	writeJSON(t, filepath.Join(plugin, ".claude-plugin", "plugin.json"), map[string]any{"name": "tools"})

	tests := []struct {
		name, host, payload string
		roots               bool   // set SKI_ROOTS
		want                string // skill id marked loaded, "" for none
	}{
		{"claude read", "claude", payload(map[string]any{"session_id": "s", "cwd": project, "hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": map[string]any{"file_path": demo}, "tool_response": map[string]any{"type": "text"}, "tool_use_id": "t1"}), true, "demo"},
		{"claude read via symlink", "claude", payload(map[string]any{"session_id": "s", "cwd": project, "tool_name": "Read", "tool_input": map[string]any{"file_path": filepath.Join(link, "lint", "SKILL.md")}}), true, "lint"},
		{"claude read not in catalog", "claude", payload(map[string]any{"session_id": "s", "cwd": project, "tool_name": "Read", "tool_input": map[string]any{"file_path": outside}}), true, ""},
		{"claude read other file", "claude", payload(map[string]any{"session_id": "s", "cwd": project, "tool_name": "Read", "tool_input": map[string]any{"file_path": "/etc/hostname"}}), true, ""},
		{"claude skill", "claude", payload(map[string]any{"session_id": "s", "cwd": project, "tool_name": "Skill", "tool_input": map[string]any{"skill": "demo"}}), true, "demo"},
		{"claude skill plugin:name", "claude", payload(map[string]any{"session_id": "s", "cwd": project, "tool_name": "Skill", "tool_input": map[string]any{"skill": "tools:fmt", "args": "go"}}), false, "plugin:tools/fmt"},
		{"claude skill unknown", "claude", payload(map[string]any{"session_id": "s", "cwd": project, "tool_name": "Skill", "tool_input": map[string]any{"skill": "nope"}}), true, ""},
		{"claude unrelated tool", "claude", payload(map[string]any{"session_id": "s", "cwd": project, "tool_name": "Bash", "tool_input": map[string]any{"command": "cat " + demo}}), true, ""},
		{"opencode skill", "opencode", payload(map[string]any{"session_id": "s", "cwd": project, "tool": "skill", "args": map[string]any{"name": "lint"}}), true, "lint"},
		{"opencode read", "opencode", payload(map[string]any{"session_id": "s", "cwd": project, "tool": "read", "args": map[string]any{"filePath": demo}}), true, "demo"},
		{"opencode unrelated tool", "opencode", payload(map[string]any{"session_id": "s", "tool": "bash", "args": map[string]any{"command": "ls"}}), true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			if tt.roots {
				w.vars["SKI_ROOTS"] = filepath.Join(t.TempDir(), "missing") + ":" + root
			} else {
				claude := filepath.Join(w.home, ".claude")
				writeJSON(t, filepath.Join(claude, "settings.json"), map[string]any{"enabledPlugins": map[string]any{"tools@market": true}})
				writeJSON(t, filepath.Join(claude, "plugins", "installed_plugins.json"), map[string]any{"version": 2, "plugins": map[string]any{
					"tools@market": []any{map[string]any{"scope": "user", "installPath": plugin}}}})
			}
			r := w.run(tt.payload+"\n", "observe", "--host", tt.host)
			if r.code != 0 || r.stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			l := w.load("s")
			if tt.want == "" {
				if ids := l.LoadedIDs(); len(ids) != 0 {
					t.Errorf("marked %v", ids)
				}
				return
			}
			e, ok := l.Loaded(tt.want)
			if !ok || e.Source != ledger.SourceModel || len(l.LoadedIDs()) != 1 {
				t.Errorf("loaded %v, want only %s (model); stderr %s", l.LoadedIDs(), tt.want, r.stderr)
			}
		})
	}
}

func payload(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(payload(v)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestObserveVerboseAndErrors(t *testing.T) {
	w := newWorld(t)
	root := skillTree(t, "demo")
	w.vars["SKI_ROOTS"] = root
	in := payload(map[string]any{"session_id": "s", "cwd": root, "tool_name": "Skill", "tool_input": map[string]any{"skill": "demo"}}) + "\n"
	r := w.run(in, "observe", "--host", "claude", "--verbose")
	if r.code != 0 || r.stdout != "" || r.stderr != "ski-ledger: observe: 1 loaded by the model: demo\n" {
		t.Errorf("%+v", r)
	}
	r = w.run(`{"cwd":"/","tool_name":"Skill","tool_input":{"skill":"demo"}}`, "observe", "--host", "claude")
	if r.code != 1 || r.stderr != "ski-ledger: <stdin>: line 1: payload has no session_id\n" {
		t.Errorf("%+v", r)
	}
	for _, args := range [][]string{{"observe"}, {"observe", "--host", "cursor"}} {
		if r := w.run("", args...); r.code != 2 {
			t.Errorf("%v: exit %d", args, r.code)
		}
	}
}

func TestRearm(t *testing.T) {
	w := newWorld(t)
	for _, s := range []string{"c", "o", "keep"} {
		if r := w.run(sel(s, "a", "inject")+"\n", "record"); r.code != 0 {
			t.Fatal(r.stderr)
		}
	}
	in := payload(map[string]any{"session_id": "keep", "transcript_path": "/t", "cwd": "/", "hook_event_name": "SessionStart", "source": "startup"}) + "\n" +
		payload(map[string]any{"session_id": "keep", "hook_event_name": "SessionStart", "source": "resume"}) + "\n" +
		payload(map[string]any{"session_id": "keep", "hook_event_name": "SessionStart", "source": "clear"}) + "\n" +
		payload(map[string]any{"session_id": "c", "hook_event_name": "SessionStart", "source": "compact", "model": "claude-x"}) + "\n" +
		payload(map[string]any{"session_id": "o", "source": "compact"}) + "\n"
	r := w.run(in, "rearm")
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	for s, want := range map[string]bool{"c": false, "o": false, "keep": true} {
		l := w.load(s)
		if _, ok := l.Loaded("a"); ok != want {
			t.Errorf("%s: loaded %v, want %v", s, ok, want)
		}
		ev := l.Events()
		if rearmed := ev[len(ev)-1].Kind == ledger.EventRearm; rearmed == want {
			t.Errorf("%s: rearm event %v", s, rearmed)
		}
	}
	// --session rearms directly, without reading stdin.
	r = w.run("this is not read", "rearm", "--session", "keep")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if _, ok := w.load("keep").Loaded("a"); ok {
		t.Error("--session did not rearm")
	}
}

func TestShow(t *testing.T) {
	w := newWorld(t)
	w.run(sel("s1", "a", "inject")+"\n"+sel("s1", "b", "host-loads")+"\n", "record")
	w.run(sel("../odd id", "a", "suggest")+"\n", "record")
	r := w.run("", "show", "--session", "s1")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if doc["session_id"] != "s1" || len(doc["loaded"].(map[string]any)) != 2 {
		t.Errorf("%s", r.stdout)
	}
	r = w.run("", "show")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(lines) != 2 {
		t.Fatalf("%+v", r)
	}
	got := map[string]string{}
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 3 {
			t.Fatalf("line %q", l)
		}
		if _, err := time.Parse(time.RFC3339, f[2]); err != nil {
			t.Error(err)
		}
		got[f[0]] = f[1]
	}
	if got["s1"] != "2" || got["../odd id"] != "0" {
		t.Errorf("show: %q", r.stdout)
	}
	r = w.run("", "show", "--session", "nope")
	if r.code != 1 || !strings.Contains(r.stderr, `no ledger for session "nope"`) {
		t.Errorf("%+v", r)
	}
}

func TestGC(t *testing.T) {
	w := newWorld(t)
	w.run(sel("old", "a", "inject")+"\n"+sel("new", "a", "inject")+"\n", "record")
	path, _ := w.store().Path("old")
	long := time.Now().Add(-1000 * time.Hour)
	os.Chtimes(path, long, long)
	r := w.run("", "gc", "--verbose")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "removed 1 ledgers") {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("old ledger kept")
	}
	if _, ok := w.load("new").Loaded("a"); !ok {
		t.Error("new ledger lost")
	}
	if r := w.run("", "gc", "--older-than", "0s"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if _, ok := w.load("new").Loaded("a"); ok {
		t.Error("gc --older-than 0s kept the ledger")
	}
	if r := w.run("", "gc", "--older-than", "soon"); r.code != 2 {
		t.Errorf("%+v", r)
	}
}

func TestUsage(t *testing.T) {
	w := newWorld(t)
	tests := []struct {
		args []string
		code int
		want string // in stderr, or stdout for exit 0
	}{
		{nil, 2, "missing subcommand (want record, observe, rearm, listing, show, stats, gc)"},
		{[]string{"frob"}, 2, `unknown subcommand "frob" (want record, observe, rearm, listing, show, stats, gc)`},
		{[]string{"record", "extra"}, 2, `record: unexpected argument "extra"`},
		{[]string{"record", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"--help"}, 0, "Ski-ledger keeps"},
		{[]string{"record", "--help"}, 0, "Record reads ski-select records"},
		{[]string{"observe", "--help"}, 0, "Observe reads host tool payloads"},
		{[]string{"rearm", "-h"}, 0, "Rearm reads session-start payloads"},
		{[]string{"show", "--help"}, 0, "Show prints the ledger"},
		{[]string{"gc", "--help"}, 0, "GC removes the ledgers"},
	}
	for _, tt := range tests {
		r := w.run("", tt.args...)
		out := r.stderr
		if tt.code == 0 {
			out = r.stdout
		}
		if r.code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("%v: exit %d, %q; want %d, %q", tt.args, r.code, out, tt.code, tt.want)
		}
	}
}

// A suggestion the model follows by loading the skill (seen by observe)
// shows in stats as suggested and followed, apart from injections.
func TestStatsSuggestedAndFollowed(t *testing.T) {
	w := newWorld(t)
	root := skillTree(t, "demo", "lint")
	w.vars["SKI_ROOTS"] = root
	if r := w.run(sel("s1", "demo", "suggest")+"\n"+sel("s1", "lint", "suggest")+"\n", "record"); r.code != 0 {
		t.Fatalf("record: %+v", r)
	}
	load := payload(map[string]any{"session_id": "s1", "cwd": root, "tool_name": "Skill", "tool_input": map[string]any{"skill": "demo"}})
	if r := w.run(load+"\n", "observe", "--host", "claude"); r.code != 0 {
		t.Fatalf("observe: %+v", r)
	}
	r := w.run("", "stats")
	if r.code != 0 {
		t.Fatalf("stats: %+v", r)
	}
	got := map[string]ledger.SkillStats{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var s ledger.SkillStats
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		got[s.ID] = s
	}
	if d := got["demo"]; d.Suggested != 1 || d.SuggestionsFollowed != 1 || d.Injected != 0 || d.Followed != 0 || d.ModelLoaded != 1 {
		t.Errorf("demo %+v", d)
	}
	if l := got["lint"]; l.Suggested != 1 || l.SuggestionsFollowed != 0 {
		t.Errorf("lint %+v", l)
	}
	if !strings.Contains(r.stdout, `"suggested":1,"suggestions_followed":1`) {
		t.Errorf("record fields: %s", r.stdout)
	}
	table := w.run("", "stats", "--table").stdout
	if lines := strings.Split(table, "\n"); !strings.Contains(lines[0], "SUGGESTED  SUGGEST-FOLLOWED") ||
		!strings.HasPrefix(lines[1], "demo") || len(strings.Fields(lines[1])) != 12 {
		t.Errorf("table:\n%s", table)
	}
}

// TestListing works out Claude Code's listing at session start: with the
// budget of SLASH_COMMAND_TOOL_CHAR_BUDGET, the user's two skills past
// it are bare names; under the payload's model's budget they are shown
// whole; a skill the model may not invoke is absent.
func TestListing(t *testing.T) {
	w := newWorld(t)
	skills := filepath.Join(w.home, ".claude", "skills")
	for name, extra := range map[string]string{"alpha": "", "beta": "", "gamma": "disable-model-invocation: true\n"} {
		os.MkdirAll(filepath.Join(skills, name), 0o755)
		os.WriteFile(filepath.Join(skills, name, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: Does "+name+" things well.\n"+extra+"---\nBody.\n"), 0o644)
	}
	project := filepath.Join(w.home, "p")
	os.MkdirAll(project, 0o755)
	w.vars["SLASH_COMMAND_TOOL_CHAR_BUDGET"] = "10"
	r := w.run(payload(map[string]any{"session_id": "s", "cwd": project, "source": "startup"})+"\n", "listing", "--host", "claude")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("%+v", r)
	}
	l := w.load("s")
	for id, want := range map[string]string{"alpha": "bare", "beta": "bare", "gamma": "absent"} {
		if got := l.Shown(id); got != want {
			t.Errorf("at 10 characters, %s: %q, want %q", id, got, want)
		}
	}
	delete(w.vars, "SLASH_COMMAND_TOOL_CHAR_BUDGET")
	r = w.run(payload(map[string]any{"session_id": "s", "cwd": project, "source": "compact", "model": "claude-sonnet-4-5"})+"\n", "listing", "--host", "claude", "--verbose")
	if r.code != 0 || !strings.Contains(r.stderr, `session "s": budget 8000 (claude-sonnet-4-5): 1 skills not shown whole`) {
		t.Fatalf("%+v", r)
	}
	if got := w.load("s").Shown("alpha"); got != "full" {
		t.Errorf("at 8000 characters, alpha: %q", got)
	}
	if r := w.run("{}\n", "listing"); r.code != 2 {
		t.Errorf("no --host: %+v", r)
	}
}

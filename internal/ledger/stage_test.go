package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/record"
)

func TestRecordPassThrough(t *testing.T) {
	s, _ := testStore(t)
	in := `{"kind":"selection","session_id":"s1","id":"user/a","decision":"inject","score":0.5}` + "\r\n" +
		"\n" +
		`{"kind":"selection","session_id":"s1","id":"user/b","decision":"suggest"}` + "\n" +
		`{"kind":"selection","session_id":"s2","id":"user/c","decision":"host-loads"}` + "\n" +
		`  {"kind":"selection","session_id":"s2","id":"user/d","decision":"drop",  "why":["<&>"]}` // no final newline
	var out bytes.Buffer
	marks, err := Record(s, Input{R: strings.NewReader(in), Name: "<stdin>"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"selection","session_id":"s1","id":"user/a","decision":"inject","score":0.5}` + "\n" +
		`{"kind":"selection","session_id":"s1","id":"user/b","decision":"suggest"}` + "\n" +
		`{"kind":"selection","session_id":"s2","id":"user/c","decision":"host-loads"}` + "\n" +
		`{"kind":"selection","session_id":"s2","id":"user/d","decision":"drop",  "why":["<&>"]}` + "\n"
	if out.String() != want {
		t.Errorf("output is not the input's records, one a line:\n%q\n%q", out.String(), want)
	}
	if len(marks) != 3 {
		t.Errorf("marks %+v", marks)
	}
	l1, _ := s.Load("s1")
	if e, ok := l1.Loaded("user/a"); !ok || e.Source != SourceSki {
		t.Errorf("user/a: %+v %v", e, ok)
	}
	if !l1.Suggested("user/b") {
		t.Error("user/b not suggested")
	}
	l2, _ := s.Load("s2")
	if e, ok := l2.Loaded("user/c"); !ok || e.Source != SourceUser {
		t.Errorf("user/c: %+v %v", e, ok)
	}
	if _, ok := l2.Loaded("user/d"); ok || l2.Suggested("user/d") {
		t.Error("dropped user/d recorded")
	}
}

func TestRecordEmpty(t *testing.T) {
	s, _ := testStore(t)
	var out bytes.Buffer
	if _, err := Record(s, Input{R: strings.NewReader("")}, &out); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("output %q", out.String())
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Error("empty input created the ledger directory")
	}
}

func TestRecordErrors(t *testing.T) {
	good := `{"kind":"selection","session_id":"s1","id":"a","decision":"inject"}` + "\n"
	tests := []struct{ name, line, want string }{
		{"garbage", "hello\n", "line 2: not a JSON object"},
		{"invalid utf-8", "{\"kind\":\"selection\",\"id\":\"\xff\"}\n", "line 2: invalid UTF-8"},
		{"no session", `{"kind":"selection","id":"a","decision":"inject"}` + "\n", "line 2: selection has no session_id"},
		{"other kind", `{"kind":"candidate","session_id":"s1","id":"a"}` + "\n", `line 2: kind "candidate", want "selection"`},
		{"no kind", `{"session_id":"s1","id":"a","decision":"inject"}` + "\n", `line 2: kind "", want "selection"`},
		{"bad decision", `{"kind":"selection","session_id":"s1","id":"a","decision":"maybe"}` + "\n", `line 2: decision "maybe"`},
		{"no id", `{"kind":"selection","session_id":"s1","decision":"inject"}` + "\n", "line 2: selection has no id"},
		{"wrong type", `{"kind":"selection","session_id":7}` + "\n", "line 2: decode selection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := testStore(t)
			// An existing ledger that must stay as it is.
			if err := s.Update("s1", func(l *Ledger) error {
				l.MarkLoaded("old", SourceModel, t0)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			path, _ := s.Path("s1")
			before, _ := os.ReadFile(path)
			var out bytes.Buffer
			_, err := Record(s, Input{R: strings.NewReader(good + tt.line + good), Name: "<stdin>"}, &out)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if out.Len() != 0 {
				t.Errorf("wrote %q despite the error", out.String())
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Errorf("ledger changed:\n%s\n%s", before, after)
			}
		})
	}
}

func TestRecordUpdateFailureWritesNothing(t *testing.T) {
	s, _ := testStore(t)
	// A file where the folder above ski's state folder should be (ski
	// sets aside what is wrong in its own folders, not the user's).
	top := filepath.Dir(filepath.Dir(s.Dir))
	if err := os.MkdirAll(filepath.Dir(top), 0o700); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(top)
	os.WriteFile(top, nil, 0o600)
	var out bytes.Buffer
	_, err := Record(s, Input{R: strings.NewReader(`{"kind":"selection","session_id":"s","id":"a","decision":"inject"}`)}, &out)
	if err == nil {
		t.Fatal("no error")
	}
	if out.Len() != 0 {
		t.Errorf("wrote %q", out.String())
	}
}

func TestRearmPayloads(t *testing.T) {
	s, _ := testStore(t)
	for _, id := range []string{"c1", "o1", "keep"} {
		s.Update(id, func(l *Ledger) error { l.MarkLoaded("a", SourceSki, t0); return nil })
	}
	in := `{"session_id":"keep","source":"startup","hook_event_name":"SessionStart"}
{"session_id":"keep","source":"resume"}
{"session_id":"keep","source":"clear"}
{"session_id":"c1","source":"compact","model":"claude-x","hook_event_name":"SessionStart"}
{"sessionID":"o1","source":"compact"}
{"source":"startup"}
`
	marks, err := RearmPayloads(s, Input{R: strings.NewReader(in)})
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 2 {
		t.Errorf("marks %+v", marks)
	}
	for id, want := range map[string]bool{"c1": false, "o1": false, "keep": true} {
		l, _ := s.Load(id)
		if _, ok := l.Loaded("a"); ok != want {
			t.Errorf("%s: loaded a = %v, want %v", id, ok, want)
		}
	}
	if _, err := RearmPayloads(s, Input{R: strings.NewReader(`{"source":"compact"}`)}); err == nil ||
		!strings.Contains(err.Error(), "line 1: compact payload has no session_id") {
		t.Errorf("err = %v", err)
	}
}

// catalogDir makes two skills in a temporary directory, one reached
// through a symbolic link, and returns the catalog ski-scan would give.
func catalogDir(t *testing.T) (dir string, skills []record.Skill) {
	t.Helper()
	dir = t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(dir, rel, "SKILL.md")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("---\nname: x\ndescription: y\n---\n"), 0o644)
		return p
	}
	demo := mk("skills/demo")
	plug := mk("plugins/tools/skills/fmt")
	other := mk("elsewhere/other")
	_ = other
	if err := os.Symlink(filepath.Join(dir, "skills"), filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	skills = []record.Skill{
		{Kind: "skill", ID: "user/demo", Name: "demo", Invoke: "demo", Path: demo},
		{Kind: "skill", ID: "plugin/tools/fmt", Name: "fmt", Invoke: "tools:fmt", Path: plug},
	}
	return dir, skills
}

func TestObserve(t *testing.T) {
	dir, skills := catalogDir(t)
	demo := filepath.Join(dir, "skills/demo/SKILL.md")
	tests := []struct {
		name, host, payload string
		want                string // skill id marked, "" for none
		catalog             bool   // the catalog is consulted
	}{
		{"claude read", "claude", `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"` + demo + `"},"tool_response":{"x":1}}`, "user/demo", true},
		{"claude read via symlink", "claude", `{"session_id":"s","cwd":"/","tool_name":"Read","tool_input":{"file_path":"` + dir + `/linked/demo/SKILL.md"}}`, "user/demo", true},
		{"claude read unclean path", "claude", `{"session_id":"s","cwd":"/","tool_name":"Read","tool_input":{"file_path":"` + dir + `/skills/./demo/../demo/SKILL.md"}}`, "user/demo", true},
		{"claude read relative", "claude", `{"session_id":"s","cwd":"` + dir + `","tool_name":"Read","tool_input":{"file_path":"skills/demo/SKILL.md"}}`, "user/demo", true},
		{"claude read not in catalog", "claude", `{"session_id":"s","cwd":"/","tool_name":"Read","tool_input":{"file_path":"` + dir + `/elsewhere/other/SKILL.md"}}`, "", true},
		{"claude read missing file", "claude", `{"session_id":"s","cwd":"/","tool_name":"Read","tool_input":{"file_path":"/nope/SKILL.md"}}`, "", true},
		{"claude read other file", "claude", `{"session_id":"s","cwd":"/","tool_name":"Read","tool_input":{"file_path":"/etc/passwd"}}`, "", false},
		{"claude read skill.md lowercase", "claude", `{"session_id":"s","cwd":"/","tool_name":"Read","tool_input":{"file_path":"` + dir + `/skills/demo/skill.md"}}`, "", false},
		{"claude skill plugin", "claude", `{"session_id":"s","cwd":"/","tool_name":"Skill","tool_input":{"skill":"tools:fmt","args":"x"}}`, "plugin/tools/fmt", true},
		{"claude skill name", "claude", `{"session_id":"s","cwd":"/","tool_name":"Skill","tool_input":{"skill":"demo"}}`, "user/demo", true},
		{"claude skill plugin by name", "claude", `{"session_id":"s","cwd":"/","tool_name":"Skill","tool_input":{"skill":"fmt"}}`, "plugin/tools/fmt", true},
		{"claude skill unknown", "claude", `{"session_id":"s","cwd":"/","tool_name":"Skill","tool_input":{"skill":"nope"}}`, "", true},
		{"claude other tool", "claude", `{"tool_name":"Bash","tool_input":{"command":"cat SKILL.md"}}`, "", false},
		{"claude no tool input", "claude", `{"session_id":"s","tool_name":"Read"}`, "", false},
		{"opencode skill", "opencode", `{"session_id":"s","cwd":"/","tool":"skill","args":{"name":"demo"}}`, "user/demo", true},
		{"opencode skill sessionID", "opencode", `{"sessionID":"s","tool":"skill","callID":"c","args":{"name":"demo"}}`, "user/demo", true},
		{"opencode read", "opencode", `{"session_id":"s","tool":"read","args":{"filePath":"` + demo + `"}}`, "user/demo", true},
		{"opencode other tool", "opencode", `{"session_id":"s","tool":"bash","args":{"command":"ls"}}`, "", false},
		{"claude payload to opencode", "opencode", `{"session_id":"s","cwd":"/","tool_name":"Skill","tool_input":{"skill":"demo"}}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := testStore(t)
			called := false
			marks, err := Observe(s, Input{R: strings.NewReader(tt.payload + "\n")}, ObserveOptions{
				Host: tt.host,
				Catalog: func(cwd string) ([]record.Skill, error) {
					called = true
					return skills, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if called != tt.catalog {
				t.Errorf("catalog consulted: %v, want %v", called, tt.catalog)
			}
			l, _ := s.Load("s")
			if tt.want == "" {
				if len(marks) != 0 || len(l.LoadedIDs()) != 0 {
					t.Errorf("marked %v", l.LoadedIDs())
				}
				return
			}
			e, ok := l.Loaded(tt.want)
			if !ok || e.Source != SourceModel || len(l.LoadedIDs()) != 1 {
				t.Errorf("loaded %v, want only %s by the model", l.LoadedIDs(), tt.want)
			}
			if ev := l.Events(); len(ev) != 1 || ev[0].Kind != EventLoad {
				t.Errorf("events %+v", ev)
			}
		})
	}
}

func TestObserveCatalogOncePerCwd(t *testing.T) {
	_, skills := catalogDir(t)
	s, _ := testStore(t)
	in := `{"session_id":"s1","cwd":"/a","tool_name":"Skill","tool_input":{"skill":"demo"}}
{"session_id":"s2","cwd":"/a","tool_name":"Skill","tool_input":{"skill":"tools:fmt"}}
{"session_id":"s1","cwd":"/b","tool_name":"Skill","tool_input":{"skill":"tools:fmt"}}
`
	var cwds []string
	marks, err := Observe(s, Input{R: strings.NewReader(in)}, ObserveOptions{
		Host: "claude",
		Catalog: func(cwd string) ([]record.Skill, error) {
			cwds = append(cwds, cwd)
			return skills, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cwds, " ") != "/a /b" || len(marks) != 3 {
		t.Errorf("cwds %v, marks %+v", cwds, marks)
	}
	l, _ := s.Load("s1")
	if got := strings.Join(l.LoadedIDs(), " "); got != "plugin/tools/fmt user/demo" {
		t.Errorf("s1 loaded %s", got)
	}
}

func TestObserveErrors(t *testing.T) {
	tests := []struct{ name, host, in, want string }{
		{"not json", "claude", "{nope\n", "line 1: not a JSON object"},
		{"no session", "claude", `{"tool_name":"Skill","tool_input":{"skill":"demo"}}`, "line 1: payload has no session_id"},
		{"bad tool input", "claude", `{"session_id":"s","tool_name":"Read","tool_input":"x"}`, "line 1: decode tool_input"},
		{"bad args", "opencode", `{"session_id":"s","tool":"skill","args":[1]}`, "line 1: decode args"},
		{"unknown host", "cursor", `{"session_id":"s"}`, `line 1: unknown host "cursor"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := testStore(t)
			_, err := Observe(s, Input{R: strings.NewReader(tt.in)}, ObserveOptions{
				Host:    tt.host,
				Catalog: func(string) ([]record.Skill, error) { return nil, nil },
			})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// Two prompts of a session that both chose to inject a skill: the one that
// records second finds it in the ledger under the lock, and passes on
// neither its injection nor a suggestion already made.
func TestRecordDropsWhatAnotherPromptRecorded(t *testing.T) {
	s, _ := testStore(t)
	in := `{"kind":"selection","session_id":"s1","id":"a","decision":"inject"}` + "\n" +
		`{"kind":"selection","session_id":"s1","id":"b","decision":"suggest"}` + "\n" +
		`{"kind":"selection","session_id":"s1","id":"c","decision":"drop"}` + "\n"
	var first, second bytes.Buffer
	if _, err := Record(s, Input{R: strings.NewReader(in)}, &first); err != nil {
		t.Fatal(err)
	}
	if first.String() != in {
		t.Fatalf("first prompt: %q", first.String())
	}
	marks, err := Record(s, Input{R: strings.NewReader(in)}, &second)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":"selection","session_id":"s1","id":"c","decision":"drop"}` + "\n"; second.String() != want {
		t.Fatalf("second prompt passed on %q, want only %q", second.String(), want)
	}
	if len(marks) != 0 {
		t.Fatalf("second prompt made marks %+v", marks)
	}
	l, err := s.Load("s1")
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := l.Loaded("a"); e.Count != 1 {
		t.Fatalf("a marked loaded %d times, want 1", e.Count)
	}
}

// ski's own tools under the names both hosts give them: a search records
// what it found, a skill_load the model's load (source tool); a second
// skill_load of it, and only that, is reported as a repeat.
func TestObserveSkiTools(t *testing.T) {
	_, skills := catalogDir(t)
	s, _ := testStore(t)
	in := `{"session_id":"s1","cwd":"/a","tool_name":"mcp__plugin_ski_ski__skill_search","tool_input":{"query":"x"},"tool_response":[{"type":"text","text":"ski: 2 skills for \"x\", best first (load one with skill_load):\n1. demo [inject] — d (why)\n2. tools:fmt [weak] — f (why)"}]}
{"session_id":"s1","cwd":"/a","tool_name":"mcp__ski__skill_load","tool_input":{"name":"demo"}}
{"session_id":"s2","cwd":"/a","tool":"skill_load","args":{"name":"demo"}}
`
	var repeats []string
	opts := ObserveOptions{Host: "claude", Catalog: func(string) ([]record.Skill, error) { return skills, nil },
		Repeat: func(o Observation, sk record.Skill) { repeats = append(repeats, o.Session+" "+sk.ID) }}
	if _, err := Observe(s, Input{R: strings.NewReader(strings.SplitAfter(in, "\n")[0] + strings.SplitAfter(in, "\n")[1])}, opts); err != nil {
		t.Fatal(err)
	}
	l, _ := s.Load("s1")
	var events []string
	for _, e := range l.Events() {
		events = append(events, strings.TrimSpace(e.Kind+" "+e.ID+" "+string(e.Source)))
	}
	if strings.Join(events, ", ") != "search, found user/demo, found plugin/tools/fmt, load user/demo tool" {
		t.Fatalf("events %q", strings.Join(events, ", "))
	}
	if len(repeats) != 0 {
		t.Fatalf("a first load is a repeat: %v", repeats)
	}
	// Again in s1 (claude) and a first time in s2 (opencode's payload).
	if _, err := Observe(s, Input{R: strings.NewReader(strings.SplitAfter(in, "\n")[1])}, opts); err != nil {
		t.Fatal(err)
	}
	opts.Host = "opencode"
	if _, err := Observe(s, Input{R: strings.NewReader(strings.SplitAfter(in, "\n")[2])}, opts); err != nil {
		t.Fatal(err)
	}
	if strings.Join(repeats, ",") != "s1 user/demo" {
		t.Fatalf("repeats %v, want s1 user/demo", repeats)
	}
}

// The listing worked out at session start is kept in the session's ledger
// (written and read back) for the prompts: a skill it does not name is
// shown whole; a session without one knows nothing; a rearm keeps it.
func TestListingPayloads(t *testing.T) {
	s, _ := testStore(t)
	in := `{"session_id":"s1","cwd":"/p","source":"startup"}
{"sessionID":"o1","cwd":"/q","model":"claude-opus-4-7"}
`
	var asked []string
	marks, err := ListingPayloads(s, Input{R: strings.NewReader(in)}, func(cwd, model string) (*Listing, error) {
		asked = append(asked, cwd+" "+model)
		return &Listing{Model: model, Budget: 6000, States: map[string]string{"a": "bare", "b": "absent"}}, nil
	})
	if err != nil || len(marks) != 2 || strings.Join(asked, ",") != "/p ,/q claude-opus-4-7" {
		t.Fatalf("marks %+v, asked %q: %v", marks, asked, err)
	}
	s.Update("s1", func(l *Ledger) error { l.Rearm(t0); return nil })
	l, _ := s.Load("s1")
	for id, want := range map[string]string{"a": "bare", "b": "absent", "c": "full"} {
		if got := l.Shown(id); got != want {
			t.Errorf("s1 %s: %q, want %q", id, got, want)
		}
	}
	if l, _ := s.Load("o1"); len(l.Events()) != 0 || l.Shown("a") != "bare" {
		t.Errorf("o1: events %v (the log keeps no listing), a %q", l.Events(), l.Shown("a"))
	}
	if l, _ := s.Load("other"); l.Shown("a") != "" {
		t.Errorf("a session without a listing: %q", l.Shown("a"))
	}
	if _, err := ListingPayloads(s, Input{R: strings.NewReader(`{"cwd":"/p"}`)}, nil); err == nil ||
		!strings.Contains(err.Error(), "line 1: payload has no session_id") {
		t.Errorf("err = %v", err)
	}
}

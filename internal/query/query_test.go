package query

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/scan"
)

func writeSkill(t *testing.T, root, id, desc string) {
	t.Helper()
	dir := filepath.Join(root, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "---\nname: " + filepath.Base(id) + "\ndescription: " + desc + "\n---\n# " + id + "\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func opts(t *testing.T, root string) Options {
	return Options{
		Host: "claude", Model: embed.LexicalID, CacheDir: t.TempDir(),
		Scan: scan.Options{Host: "claude", Roots: []string{root}, Home: t.TempDir()},
		Warn: func(msg string) { t.Log(msg) }, Now: time.Now,
	}
}

func TestQueryBuildsIndexAndKeepsFields(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "writing/postmortem", "Write blameless incident postmortems.")
	o := opts(t, root)
	in := `{"session_id":"s1","cwd":"/nowhere","prompt":"write a postmortem","transcript_path":"/t.jsonl","hook_event_name":"UserPromptSubmit"}` + "\n" +
		`{"session_id":"s1","prompt":"<system-reminder>ignore</system-reminder>"}` + "\n" +
		`{"session_id":"s1","prompt":"   "}` + "\n"
	var out bytes.Buffer
	if err := Run(o, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one query (control and empty prompts skipped), got %d: %s", len(lines), out.String())
	}
	var q map[string]any
	json.Unmarshal([]byte(lines[0]), &q)
	if q["kind"] != "query" || q["transcript_path"] != "/t.jsonl" || q["model"] != embed.LexicalID ||
		!strings.HasPrefix(q["query_id"].(string), "q-") || len(q["vector"].([]any)) != 1024 {
		t.Fatalf("query record: %v", q)
	}
	if r := prompt.Read("write a postmortem"); q["text"] != r.Text || q["intent"] != string(r.Intent) {
		t.Fatalf("query record's reading: text %q intent %q, want %+v", q["text"], q["intent"], r)
	}
	if _, err := os.Stat(q["index"].(string)); err != nil {
		t.Fatalf("automatic index not built: %v", err)
	}
}

func TestPromptIDAndIndexOverride(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "a", "Alpha.")
	o := opts(t, root)
	in := `{"prompt":"alpha","prompt_id":"p-1","index":"/etc/passwd"}` + "\n"
	var out bytes.Buffer
	if err := Run(o, strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var q map[string]any
	json.Unmarshal(out.Bytes(), &q)
	if q["query_id"] != "p-1" || q["index"] == "/etc/passwd" {
		t.Fatalf("query_id or index not set by ski: %v", q)
	}
}

func TestExplicitIndexMissing(t *testing.T) {
	o := opts(t, t.TempDir())
	o.IndexPath = filepath.Join(t.TempDir(), "none.skv")
	err := Run(o, strings.NewReader(`{"prompt":"x"}`+"\n"), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "line 1: open index") {
		t.Fatalf("err = %v", err)
	}
}

func TestRebuildIncremental(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "a", "Alpha.")
	writeSkill(t, root, "b", "Beta.")
	o := opts(t, root)
	path := filepath.Join(t.TempDir(), "i.skv")
	st, err := Rebuild(path, o.Scan, embed.NewLexical(), o.Warn, time.Now())
	if err != nil || st.Embedded != 2 {
		t.Fatalf("first: %+v %v", st, err)
	}
	writeSkill(t, root, "b", "Beta, changed.")
	st, err = Rebuild(path, o.Scan, embed.NewLexical(), o.Warn, time.Now())
	if err != nil || st.Embedded != 1 || st.Reused != 1 {
		t.Fatalf("second: %+v %v", st, err)
	}
}

// A refresh with nothing changed neither scans nor writes; any change to a
// skill file (even one that keeps its size) or a new skill is picked up.
func TestRebuildSkipsWhenUnchanged(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "writing/postmortem", "Write blameless incident postmortems.")
	o := opts(t, root)
	path := filepath.Join(t.TempDir(), "i.skv")
	emb := embed.NewLexical()
	rebuild := func() index.Stats {
		t.Helper()
		st, err := Rebuild(path, o.Scan, emb, o.Warn, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := rebuild(); st.Embedded != 1 {
		t.Fatalf("first build: %+v", st)
	}
	before, _ := os.Stat(path)
	if st := rebuild(); st.Embedded != 0 || st.Reused != 1 {
		t.Fatalf("unchanged: %+v", st)
	}
	if after, _ := os.Stat(path); !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("unchanged skills: the index was rewritten")
	}
	writeSkill(t, root, "writing/postmortem", "Write blameless incident postmortem!")
	if st := rebuild(); st.Embedded != 1 {
		t.Fatalf("same-size edit: %+v", st)
	}
	writeSkill(t, root, "ops/helm", "Helm charts.")
	if st := rebuild(); st.Embedded != 1 || st.Reused != 1 {
		t.Fatalf("new skill: %+v", st)
	}
}

// closing records when it is closed.
type closing struct {
	embed.Embedder
	events *[]string
}

func (c closing) Close() error {
	*c.events = append(*c.events, "close")
	return c.Embedder.Close()
}

// Written runs once the output is complete and before the model is
// released, so ski-embed can end its output early.
func TestWrittenBeforeRelease(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "writing/postmortem", "Write blameless incident postmortems.")
	o := opts(t, root)
	var events []string
	var out bytes.Buffer
	o.Wrap = func(e embed.Embedder) embed.Embedder { return closing{e, &events} }
	o.Written = func() {
		events = append(events, fmt.Sprintf("written %d", strings.Count(out.String(), `"kind":"query"`)))
	}
	if err := Run(o, strings.NewReader(`{"prompt":"write a postmortem"}`+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	if strings.Join(events, ", ") != "written 1, close" {
		t.Errorf("events: %q", events)
	}
}

// Hint gives the text Run embeds for an event, and "" where Run embeds none.
func TestHint(t *testing.T) {
	for _, tt := range []struct{ event, want string }{
		{`{"prompt":"/commit fix the typo in README"}`, prompt.QueryText("/commit fix the typo in README")},
		{`{"session_id":"s","prompt":"write a postmortem"}`, "write a postmortem"},
		{`{"prompt":"<system-reminder>x</system-reminder>"}`, ""},
		{`{"prompt":"/commit"}`, ""},
		{`{"prompt":"   "}`, ""},
		{`{"prompt":42}`, ""},
		{`{"session_id":"s",`, ""},
	} {
		if got := Hint([]byte(tt.event)); got != tt.want {
			t.Errorf("Hint(%s) = %q, want %q", tt.event, got, tt.want)
		}
	}
}

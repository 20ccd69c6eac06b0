package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/builder"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/skilltest"
)

func opts(t *testing.T, root string) Options {
	return Options{
		Host: "claude", Model: embed.LexicalID, CacheDir: t.TempDir(),
		Scan: scan.Options{Host: "claude", Roots: []string{root}, Home: t.TempDir()},
		Warn: func(msg string) { t.Log(msg) }, Now: time.Now,
	}
}

// build builds the automatic index of o's project as a background builder
// would, with the lexical model.
func build(t *testing.T, o Options) {
	t.Helper()
	p := builder.Project{Scan: o.Scan, Model: embed.LexicalID, CacheDir: o.CacheDir}
	if _, err := builder.Run(p, builder.Options{Embedder: embed.NewLexical(),
		Warn: o.Warn}); err != nil {
		t.Fatal(err)
	}
}

func TestQueryKeepsFields(t *testing.T) {
	root := t.TempDir()
	skilltest.Write(t, root, "writing/postmortem", "Write blameless incident postmortems.")
	o := opts(t, root)
	build(t, o)
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
}

// With no index a query starts a background build and says nothing; once
// the lexical index is there (a builder writes it first) prompts are
// ranked with it while the model's index is missing; a stale index is
// used as it is, and only with CheckStamp does a prompt have a builder
// look at the skill files.
func TestQueryNeverBuilds(t *testing.T) {
	root := t.TempDir()
	skilltest.Write(t, root, "writing/postmortem", "Write blameless incident postmortems.")
	o := opts(t, root)
	o.Model = "bge-small-en-v1.5-q"
	o.Auto = fakeModel{embed.NewLexical()}
	var started []string
	o.Start = func(so scan.Options, _ string) { started = append(started, so.Host) }
	query := func() map[string]any {
		t.Helper()
		var out bytes.Buffer
		if err := Run(o, strings.NewReader(`{"prompt":"write a postmortem"}`+"\n"+`{"prompt":"write a postmortem"}`+"\n"), &out); err != nil {
			t.Fatal(err)
		}
		if out.Len() == 0 {
			return nil
		}
		var q map[string]any
		json.Unmarshal([]byte(strings.SplitN(out.String(), "\n", 2)[0]), &q)
		return q
	}
	if q := query(); q != nil || len(started) != 1 {
		t.Fatalf("no index: query %v, builds started %d (want none and 1)", q, len(started))
	}
	build(t, o) // the lexical index, as a builder writes it before embedding
	if q := query(); q == nil || q["model"] != embed.LexicalID || len(started) != 2 {
		t.Fatalf("lexical index only: query %v, builds started %d", q, len(started))
	}
	p := builder.Project{Scan: o.Scan, Model: "bge-small-en-v1.5-q", CacheDir: o.CacheDir}
	if _, err := builder.Run(p, builder.Options{Embedder: o.Auto, Warn: o.Warn}); err != nil {
		t.Fatal(err)
	}
	if q := query(); q == nil || q["model"] != "bge-small-en-v1.5-q" || len(started) != 2 {
		t.Fatalf("model index: query %v, builds started %d", q, len(started))
	}
	skilltest.Write(t, root, "ops/helm", "Helm charts.")
	if q := query(); q == nil || len(started) != 2 {
		t.Fatalf("stale index: query %v, builds started %d", q, len(started))
	}
	o.CheckStamp = true
	if q := query(); q == nil || len(started) != 3 {
		t.Fatalf("stale index, CheckStamp: query %v, builds started %d", q, len(started))
	}
	// With CheckStamp a builder is asked to look each time; it exits when
	// nothing changed.
	if q := query(); q == nil || len(started) != 4 {
		t.Fatalf("CheckStamp again: query %v, builds started %d", q, len(started))
	}
}

// fakeModel passes the lexical embedder off as another model.
type fakeModel struct{ embed.Embedder }

func (f fakeModel) Model() embed.Model {
	m := f.Embedder.Model()
	m.ID = "bge-small-en-v1.5-q"
	return m
}

func TestPromptIDAndIndexOverride(t *testing.T) {
	root := t.TempDir()
	skilltest.Write(t, root, "a", "Alpha.")
	o := opts(t, root)
	build(t, o)
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
	skilltest.Write(t, root, "writing/postmortem", "Write blameless incident postmortems.")
	o := opts(t, root)
	build(t, o)
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

// failing is a model whose server stopped answering.
type failing struct{ fakeModel }

func (failing) Embed([]string, embed.Purpose) ([][]float32, error) {
	return nil, errors.New("embed server: receive: i/o timeout")
}

// A model that does not answer (a busy embed server) leaves the prompt to
// the lexical index instead of to nothing.
func TestBusyModelFallsBackToLexical(t *testing.T) {
	root := t.TempDir()
	skilltest.Write(t, root, "writing/postmortem", "Write blameless incident postmortems.")
	o := opts(t, root)
	build(t, o) // the lexical index
	p := builder.Project{Scan: o.Scan, Model: "bge-small-en-v1.5-q", CacheDir: o.CacheDir}
	if _, err := builder.Run(p, builder.Options{Embedder: fakeModel{embed.NewLexical()}, Warn: o.Warn}); err != nil {
		t.Fatal(err)
	}
	o.Model = "bge-small-en-v1.5-q"
	o.Auto = failing{fakeModel{embed.NewLexical()}}
	var warned []string
	o.Warn = func(s string) { warned = append(warned, s) }
	var out bytes.Buffer
	if err := Run(o, strings.NewReader(`{"prompt":"write a postmortem"}`+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	var q map[string]any
	if err := json.Unmarshal(out.Bytes(), &q); err != nil || q["model"] != embed.LexicalID {
		t.Fatalf("query %s (%v), warnings %q", out.String(), err, warned)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "ranking it with the lexical index") {
		t.Fatalf("warnings %q", warned)
	}
}

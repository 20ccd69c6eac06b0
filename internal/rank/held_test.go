package rank

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/indexfile"
	"github.com/skill-inject/ski/internal/record"
)

// queryLine is a query record of prompt against the index at path.
func queryLine(t *testing.T, path, prompt string) []byte {
	t.Helper()
	vec, err := embed.NewLexical().Embed([]string{prompt}, embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	q, err := json.Marshal(map[string]any{"kind": "query", "query_id": "q1", "session_id": "s", "prompt": prompt,
		"cwd": "/p", "model": embed.LexicalID, "index": path, "vector": vec[0]})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// runLines is what Run writes for the query record line.
func runLines(t *testing.T, o Options, line []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := Run(o, bytes.NewReader(append(line, '\n')), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// A held index ranks every query byte for byte as Run does in process,
// with the settings Run works out for it (values of the directory, set
// weights, the number kept), and Run writes what its Remote answers.
func TestHeldRanksAsRun(t *testing.T) {
	path := writeIndex(t, testdataSkills(t))
	lex, body := 0.02, 0.0
	o := Options{Settings: func(model, cwd string) Settings {
		boost, penalty := map[string]float64{"/p": 0.2}[cwd], 0.05
		return Settings{Top: 3, LexicalWeight: &lex, BodyWeight: &body, KeywordBoost: &boost, SmallEditPenalty: &penalty}
	}}
	var h Held
	asked := 0
	remote := o
	remote.Remote = func(model, cwd, index string, query, settings []byte) ([]byte, bool) {
		asked++
		if model != embed.LexicalID || cwd != "/p" || index != path {
			t.Errorf("asked for model %q, directory %q, index %q", model, cwd, index)
		}
		lines, err := h.Rank(index, query, settings)
		if err != nil {
			t.Error(err)
			return nil, false
		}
		return lines, true
	}
	for _, prompt := range []string{
		"the helm chart fails to lint, fix the values.yaml",
		"just rename this variable",
		"write a postmortem for yesterday's outage",
		"@postmortem for the helm chart outage",
		"the deploy script panics on startup since yesterday, find out why",
		"the cron job crashes with a nil pointer, find the root cause",
		"",
	} {
		line := queryLine(t, path, prompt)
		want := runLines(t, o, line)
		if prompt != "" && want == "" {
			t.Fatalf("%q: no candidates", prompt)
		}
		if got := runLines(t, remote, line); got != want {
			t.Errorf("%q: held ranking\n%s\nin process\n%s", prompt, got, want)
		}
	}
	if asked != 7 || h.reads != 1 {
		t.Fatalf("Remote asked %d times, the index read %d times; want 7 and 1", asked, h.reads)
	}
	if len(h.held) != 1 || len(h.held[0].cat.near) == 0 {
		t.Fatal("no intent boosts were kept for the bug hunts")
	}
}

// Run ranks in process when its Remote declines, when the query names no
// model, when its options cannot leave the process (features), and when
// the index is smaller than RemoteFrom; Remote gets the index's absolute
// path.
func TestRunRemoteFallsBack(t *testing.T) {
	path := testIndex(t)
	line := queryLine(t, path, "write a postmortem")
	want := runLines(t, Options{}, line)
	var asked []string
	o := Options{Remote: func(_, _, index string, _, _ []byte) ([]byte, bool) {
		asked = append(asked, index)
		return nil, false
	}}
	if got := runLines(t, o, line); got != want {
		t.Fatalf("declined remote: got\n%s\nwant\n%s", got, want)
	}
	noModel := bytes.Replace(line, []byte(`"model":"`+embed.LexicalID+`",`), nil, 1)
	runLines(t, o, noModel)
	o.Settings = func(string, string) Settings { return Settings{Features: true} }
	runLines(t, o, line)
	if len(asked) != 1 || asked[0] != path {
		t.Fatalf("remote asked for %q, want once for %s", asked, path)
	}
	o.Settings = nil
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	o.RemoteFrom = st.Size() + 1
	runLines(t, o, line)
	if len(asked) != 1 {
		t.Fatalf("remote asked for an index smaller than RemoteFrom: %q", asked)
	}
	o.RemoteFrom = st.Size()
	dir, base := filepath.Split(path)
	t.Chdir(dir)
	o.IndexPath = base
	runLines(t, o, line)
	if len(asked) != 2 || asked[1] != path {
		t.Fatalf("remote asked for %q, want %s", asked, path)
	}
}

// A held index is read again only when its file changed: replaced by a
// rebuild, or cut short in place, which is then an error, not a ranking
// from the copy read before.
func TestHeldReadsAgainWhenChanged(t *testing.T) {
	skills := testdataSkills(t)
	path := writeIndex(t, skills)
	var h Held
	settings := []byte(`{"top":0}`)
	rankLines := func(prompt string) (string, error) {
		lines, err := h.Rank(path, queryLine(t, path, prompt), settings)
		return string(lines), err
	}
	for range 3 {
		if _, err := rankLines("fix the helm chart"); err != nil {
			t.Fatal(err)
		}
	}
	if h.reads != 1 {
		t.Fatalf("read %d times, want 1", h.reads)
	}
	extra := record.Skill{ID: "ops/zebra-herding", Name: "zebra-herding", Invoke: "zebra-herding", Hash: "sha256:z",
		Description: "Herd zebras across the savanna."}
	next := filepath.Join(t.TempDir(), "next.skv")
	if err := indexfile.Write(next, buildIndex(t, append(skills, extra))); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	got, err := rankLines("herd the zebras")
	if err != nil || !strings.Contains(got, extra.ID) || h.reads != 2 {
		t.Fatalf("after a rebuild: read %d times, %v, ranked\n%s", h.reads, err, got)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := rankLines("herd the zebras"); err == nil {
		t.Fatalf("a damaged index ranked:\n%s", got)
	}
}

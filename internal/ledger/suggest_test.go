package ledger

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A suggestion is kept apart from the loaded skills: the suggested skill
// is not in context, is suggested once per session, and can still be
// injected later in the session, once.
func TestSuggestionsKeptApart(t *testing.T) {
	s, _ := testStore(t)
	sel := func(id, decision string) string {
		return `{"kind":"selection","session_id":"s1","id":"` + id + `","decision":"` + decision + `"}` + "\n"
	}
	record := func(in string) string {
		t.Helper()
		var out bytes.Buffer
		if _, err := Record(s, Input{R: strings.NewReader(in)}, &out); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if out := record(sel("a", "suggest")); out != sel("a", "suggest") {
		t.Fatalf("first suggestion: %q", out)
	}
	l, _ := s.Load("s1")
	if _, loaded := l.Loaded("a"); loaded || !l.Suggested("a") {
		t.Fatalf("after a suggestion: loaded %v, suggested %v", loaded, l.Suggested("a"))
	}
	if out := record(sel("a", "suggest")); out != "" {
		t.Errorf("suggested twice: %q", out)
	}
	if out := record(sel("a", "inject")); out != sel("a", "inject") {
		t.Errorf("a suggested skill was not injected: %q", out)
	}
	if out := record(sel("a", "inject") + sel("a", "suggest")); out != "" {
		t.Errorf("injected twice or suggested once injected: %q", out)
	}
	l, _ = s.Load("s1")
	e, _ := l.Loaded("a")
	var kinds []string
	for _, ev := range l.Events() {
		kinds = append(kinds, ev.Kind)
	}
	if e.Count != 1 || e.Source != SourceSki || strings.Join(kinds, " ") != "suggest inject" {
		t.Errorf("entry %+v, events %v", e, kinds)
	}
}

// A ledger written before the suggestion band (testdata/recommend-ledger.json,
// made by that version's encoder: "recommended" and "recommend" events)
// reads as suggestions, counts in stats, and is written back in the
// current shape.
func TestOldLedgerReads(t *testing.T) {
	s, warns := testStore(t)
	old, err := os.ReadFile(filepath.Join("testdata", "recommend-ledger.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(old, []byte(`"recommended":{`)) || !bytes.Contains(old, []byte(`"event":"recommend"`)) {
		t.Fatalf("fixture is not of the old shape: %s", old)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "old-session.json"), old, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load("old-session")
	if err != nil || len(*warns) > 0 {
		t.Fatalf("load: %v, warnings %q", err, *warns)
	}
	if got := strings.Join(l.SuggestedIDs(), " "); got != "data/csv-cleaning k8s/helm-chart lint" {
		t.Errorf("suggested %q", got)
	}
	for _, e := range l.Events() {
		if e.Kind == eventRecommend {
			t.Errorf("event %+v kept its old kind", e)
		}
	}
	all, err := s.List()
	if err != nil || len(all) != 1 {
		t.Fatalf("list: %v %d", err, len(all))
	}
	stats := map[string]SkillStats{}
	for _, st := range Stats(all) {
		stats[st.ID] = st
	}
	if h := stats["k8s/helm-chart"]; h.Suggested != 1 || h.SuggestionsFollowed != 1 || h.ModelLoaded != 1 {
		t.Errorf("helm-chart %+v", h)
	}
	if c := stats["data/csv-cleaning"]; c.Suggested != 1 || c.SuggestionsFollowed != 0 {
		t.Errorf("csv-cleaning %+v", c)
	}

	// The next update writes the current shape, suggestions kept.
	if err := s.Update("old-session", func(l *Ledger) error {
		l.MarkSuggested("docs/pdf-tools", t0)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(s.Dir, "old-session.json"))
	var raw struct {
		Suggested   map[string]time.Time `json:"suggested"`
		Recommended json.RawMessage      `json:"recommended"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Suggested) != 4 || raw.Recommended != nil || bytes.Contains(data, []byte(`"recommend"`)) {
		t.Errorf("rewritten ledger: %s", data)
	}
}

// Stats: a suggestion is followed when the model loads the skill later in
// the session, unless ski injected it in between (the load follows the
// injection) or the session was re-armed.
func TestStatsSuggestions(t *testing.T) {
	now := t0
	tick := func() time.Time { now = now.Add(time.Second); return now }
	a := New("a")
	a.MarkSuggested("pm", tick())
	a.MarkLoaded("pm", SourceModel, tick()) // follows the suggestion
	a.MarkSuggested("helm", tick())
	a.MarkLoaded("helm", SourceSki, tick())   // injected later
	a.MarkLoaded("helm", SourceModel, tick()) // follows the injection
	a.MarkSuggested("csv", tick())
	a.Rearm(tick())
	a.MarkLoaded("csv", SourceModel, tick()) // after a rearm: not a follow-up
	b := New("b")
	b.MarkSuggested("pm", tick()) // not followed
	got := map[string]SkillStats{}
	for _, s := range Stats([]*Ledger{a, b}) {
		got[s.ID] = s
	}
	want := map[string]SkillStats{
		"pm":   {Kind: "stats", ID: "pm", Sessions: 2, Suggested: 2, SuggestionsFollowed: 1, ModelLoaded: 1},
		"helm": {Kind: "stats", ID: "helm", Sessions: 1, Injected: 1, Followed: 1, FollowRate: 1, Suggested: 1, ModelLoaded: 1},
		"csv":  {Kind: "stats", ID: "csv", Sessions: 1, Suggested: 1, ModelLoaded: 1},
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: got %+v, want %+v", id, got[id], w)
		}
	}
}

package gate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/record"
)

var base = Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 0.1, MaxSkills: 2, MaxSuggestions: 3}

type fakeSeen struct{ loaded, suggested map[string]bool }

func (f fakeSeen) Lookup(string) (Seen, error)     { return f, nil }
func (f fakeSeen) Loaded(id string) (string, bool) { return "ski", f.loaded[id] }
func (f fakeSeen) Suggested(id string) bool        { return f.suggested[id] }

func cand(id string, score float64, mod func(*record.Candidate)) record.Candidate {
	c := record.Candidate{Kind: record.KindCandidate, QueryID: "q", SessionID: "s", Model: "m",
		ID: id, Name: id, Invoke: id, Score: score, AutoInject: true, UserInvocable: true, Affinity: []string{}}
	if mod != nil {
		mod(&c)
	}
	return c
}

func decide(t *testing.T, set Settings, seen Sessions, cands ...record.Candidate) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, s := range selections(t, set, seen, cands...) {
		got[s.ID] = s.Decision
	}
	return got
}

// selections runs the gate over cands (every one written, dropped or not).
func selections(t *testing.T, set Settings, seen Sessions, cands ...record.Candidate) []record.Selection {
	t.Helper()
	top := 0.0
	for _, c := range cands {
		if c.Mention != "slash" && c.Score > top {
			top = c.Score
		}
	}
	var in bytes.Buffer
	for _, c := range cands {
		c.TopScore = top
		b, _ := json.Marshal(c)
		in.Write(append(b, '\n'))
	}
	var out bytes.Buffer
	o := Options{Settings: func(string, string) (Settings, error) { return set, nil }, Sessions: seen, All: true}
	if err := Run(o, &in, &out); err != nil {
		t.Fatal(err)
	}
	var sels []record.Selection
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var s record.Selection
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		if s.Kind != record.KindSelection || s.Reason == "" {
			t.Errorf("bad selection line %s", line)
		}
		sels = append(sels, s)
	}
	return sels
}

func TestGates(t *testing.T) {
	none := fakeSeen{}
	tests := []struct {
		name  string
		set   Settings
		seen  Sessions
		cands []record.Candidate
		want  map[string]string
	}{
		{"threshold and band", base, none,
			[]record.Candidate{cand("a", 0.6, nil), cand("b", 0.55, nil), cand("c", 0.2, nil)},
			map[string]string{"a": "inject", "b": "inject", "c": "drop"}},
		{"suggestion band", base, none,
			[]record.Candidate{cand("a", 0.45, nil)},
			map[string]string{"a": "suggest"}},
		{"margin against the top", base, none,
			[]record.Candidate{cand("a", 0.8, nil), cand("b", 0.65, nil)},
			map[string]string{"a": "inject", "b": "drop"}},
		{"margin taken before dedup", base, fakeSeen{loaded: map[string]bool{"a": true}},
			[]record.Candidate{cand("a", 0.8, nil), cand("b", 0.65, nil)},
			map[string]string{"a": "drop", "b": "drop"}},
		{"max skills", Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 1, MaxSkills: 1}, none,
			[]record.Candidate{cand("a", 0.8, nil), cand("b", 0.7, nil)},
			map[string]string{"a": "inject", "b": "drop"}},
		{"affinity lifts the cap by one", Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 1, MaxSkills: 1}, none,
			[]record.Candidate{
				cand("a", 0.8, func(c *record.Candidate) { c.Affinity = []string{"b"} }),
				cand("b", 0.7, func(c *record.Candidate) { c.Affinity = []string{"a"} }),
				cand("c", 0.7, func(c *record.Candidate) { c.Affinity = []string{"a"} })},
			map[string]string{"a": "inject", "b": "inject", "c": "drop"}},
		{"one-sided affinity does not", Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 1, MaxSkills: 1}, none,
			[]record.Candidate{cand("a", 0.8, nil), cand("b", 0.7, func(c *record.Candidate) { c.Affinity = []string{"a"} })},
			map[string]string{"a": "inject", "b": "drop"}},
		{"deny", Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 0.1, MaxSkills: 2, Deny: []string{"a"}}, none,
			[]record.Candidate{cand("a", 0.8, nil), cand("b", 0.75, nil)},
			map[string]string{"a": "drop", "b": "inject"}},
		{"force on a keyword hit", Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 0.1, MaxSkills: 2, Force: []string{"b"}}, none,
			[]record.Candidate{cand("a", 0.8, nil), cand("b", 0.2, func(c *record.Candidate) { c.Boost = 0.1 })},
			map[string]string{"a": "inject", "b": "inject"}},
		{"force without a keyword hit", Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 0.1, MaxSkills: 2, Force: []string{"b"}}, none,
			[]record.Candidate{cand("a", 0.8, nil), cand("b", 0.2, nil)},
			map[string]string{"a": "inject", "b": "drop"}},
		{"disable-model-invocation", base, none,
			[]record.Candidate{cand("a", 0.8, func(c *record.Candidate) { c.DisableModelInvocation = true })},
			map[string]string{"a": "drop"}},
		{"autoInject off suggests", base, none,
			[]record.Candidate{cand("a", 0.8, func(c *record.Candidate) { c.AutoInject = false })},
			map[string]string{"a": "suggest"}},
		{"suggested once per session", base, fakeSeen{suggested: map[string]bool{"a": true}},
			[]record.Candidate{cand("a", 0.45, nil), cand("b", 0.44, nil)},
			map[string]string{"a": "drop", "b": "suggest"}},
		{"a suggested skill is injected later", base, fakeSeen{suggested: map[string]bool{"a": true}},
			[]record.Candidate{cand("a", 0.55, nil)},
			map[string]string{"a": "inject"}},
		{"suggestions have their own cap", Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 1, MaxSkills: 1, MaxSuggestions: 3}, none,
			[]record.Candidate{cand("a", 0.6, nil), cand("b", 0.49, nil), cand("c", 0.48, nil), cand("d", 0.47, nil), cand("e", 0.46, nil)},
			map[string]string{"a": "inject", "b": "suggest", "c": "suggest", "d": "suggest", "e": "drop"}},
		{"suggestions without injections", Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 1, MaxSkills: 0, MaxSuggestions: 3}, none,
			[]record.Candidate{cand("b", 0.49, nil), cand("c", 0.48, nil), cand("d", 0.47, nil)},
			map[string]string{"b": "suggest", "c": "suggest", "d": "suggest"}},
		{"over max_skills, a confident skill is suggested", Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 1, MaxSkills: 1, MaxSuggestions: 1}, none,
			[]record.Candidate{cand("a", 0.8, nil), cand("b", 0.7, nil), cand("c", 0.45, nil)},
			map[string]string{"a": "inject", "b": "suggest", "c": "drop"}},
		{"max_suggestions 0 turns suggestions off", Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 1, MaxSkills: 1}, none,
			[]record.Candidate{cand("a", 0.8, nil), cand("b", 0.7, nil), cand("c", 0.45, func(c *record.Candidate) { c.AutoInject = false })},
			map[string]string{"a": "inject", "b": "drop", "c": "drop"}},
		{"margin silences the suggestion band too", base, none,
			[]record.Candidate{cand("a", 0.8, nil), cand("b", 0.45, nil)},
			map[string]string{"a": "inject", "b": "drop"}},
		{"mention wins over deny and threshold", Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 0.1, MaxSkills: 2, Deny: []string{"a"}}, none,
			[]record.Candidate{cand("a", 1.1, func(c *record.Candidate) { c.Mention = "at" }), cand("b", 0.7, nil)},
			map[string]string{"a": "inject", "b": "drop"}},
		{"mentions do not count against max_skills", Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 0.1, MaxSkills: 1}, none,
			[]record.Candidate{cand("a", 1.1, func(c *record.Candidate) { c.Mention = "at" }),
				cand("b", 1.05, func(c *record.Candidate) { c.Mention = "dollar" }), cand("c", 1.04, nil), cand("d", 0.95, nil)},
			map[string]string{"a": "inject", "b": "inject", "c": "inject", "d": "drop"}},
		{"mention already loaded", base, fakeSeen{loaded: map[string]bool{"a": true}},
			[]record.Candidate{cand("a", 1.1, func(c *record.Candidate) { c.Mention = "at" })},
			map[string]string{"a": "drop"}},
		{"slash of a skill hidden from the / menu is a mention", base, none,
			[]record.Candidate{cand("a", 0.1, func(c *record.Candidate) { c.Mention, c.UserInvocable = "slash", false })},
			map[string]string{"a": "inject"}},
		{"slash is left to the host, others compete", base, none,
			[]record.Candidate{cand("a", 0.1, func(c *record.Candidate) { c.Mention = "slash" }), cand("b", 0.7, nil)},
			map[string]string{"a": "host-loads", "b": "inject"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decide(t, tt.set, tt.seen, tt.cands...)
			for id, want := range tt.want {
				if got[id] != want {
					t.Errorf("%s: decision %q, want %q (all: %v)", id, got[id], want, got)
				}
			}
		})
	}
}

func TestGroupsByQuery(t *testing.T) {
	a := cand("a", 0.8, nil)
	b := cand("b", 0.8, nil)
	b.QueryID = "q2"
	got := decide(t, Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 0.1, MaxSkills: 1}, fakeSeen{}, a, b)
	if got["a"] != "inject" || got["b"] != "inject" {
		t.Errorf("each query has its own cap: %v", got)
	}
}

func TestRejectsOtherKinds(t *testing.T) {
	o := Options{Settings: func(string, string) (Settings, error) { return base, nil }}
	err := Run(o, strings.NewReader(`{"kind":"query","prompt":"x"}`+"\n"), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `line 1: kind "query"`) {
		t.Fatalf("err = %v", err)
	}
}

// A ledger written before ids named their source holds the skill's old id
// (its folder): the skill counts as loaded or suggested all the same.
func TestLegacyLedgerIDs(t *testing.T) {
	set := Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 1, MaxSkills: 3, MaxSuggestions: 3}
	seen := fakeSeen{loaded: map[string]bool{"review": true}, suggested: map[string]bool{"lint": true}}
	got := decide(t, set, seen,
		cand("project:review", 0.9, nil),
		cand("plugin:kit/lint", 0.4, nil),
		cand("project:fresh", 0.9, nil))
	want := map[string]string{"project:review": record.DecisionDrop, "plugin:kit/lint": record.DecisionDrop, "project:fresh": record.DecisionInject}
	for id, d := range want {
		if got[id] != d {
			t.Errorf("%s: %s, want %s", id, got[id], d)
		}
	}
}

// BandOf is where scores meet the thresholds: each floor belongs to the
// band above it.
func TestBandEdges(t *testing.T) {
	set := Settings{MinSimilarity: 0.375, InjectSimilarity: 0.5, ScoreMargin: 0.25}
	for _, tt := range []struct {
		score, top float64
		want       Band
	}{
		{0.374, 0.374, BandSilent},
		{0.375, 0.375, BandSuggest},
		{0.499, 0.499, BandSuggest},
		{0.5, 0.5, BandInject},
		{0.9, 0.9, BandInject},
		{0.5, 0.75, BandInject},  // exactly score_margin below the top
		{0.5, 0.875, BandSilent}, // further below
		{0.4, 0.875, BandSilent},
	} {
		band, why := BandOf(cand("a", tt.score, func(c *record.Candidate) { c.TopScore = tt.top }), set)
		if band != tt.want || why == "" {
			t.Errorf("score %.3f, top %.3f: %s (%s), want %s", tt.score, tt.top, band, why, tt.want)
		}
	}
}

// The caps of one query: suggestions are counted apart from injections,
// so a full set of injections leaves all suggestion slots free.
func TestSuggestionCapIsItsOwn(t *testing.T) {
	set := Settings{MinSimilarity: 0.3, InjectSimilarity: 0.5, ScoreMargin: 1, MaxSkills: 2, MaxSuggestions: 3}
	var cands []record.Candidate
	for i, score := range []float64{0.9, 0.8, 0.49, 0.48, 0.47, 0.46, 0.45} {
		cands = append(cands, cand(string(rune('a'+i)), score, func(c *record.Candidate) { c.TopScore = 0.9 }))
	}
	counts := map[string]int{}
	for _, s := range Decide(cands, set, nil) {
		counts[s.Decision]++
		if s.Decision == record.DecisionDrop && !strings.Contains(s.Reason, "max_suggestions 3 reached") {
			t.Errorf("%s dropped for %q", s.ID, s.Reason)
		}
	}
	if counts[record.DecisionInject] != 2 || counts[record.DecisionSuggest] != 3 || counts[record.DecisionDrop] != 2 {
		t.Errorf("decisions %v, want 2 injected, 3 suggested, 2 dropped", counts)
	}
}

// With the judge's confidence the bands read it, not the score, unless
// the user set score thresholds of their own.
func TestJudgedBands(t *testing.T) {
	set := Settings{MinSimilarity: 0.7, InjectSimilarity: 0.8, ScoreMargin: 0.01,
		Judged: Judged{InjectConfidence: 0.6, SuggestConfidence: 0.4}}
	off := set
	off.Judged.Off = true
	withConf := func(score, top, conf float64) record.Candidate {
		return cand("a", score, func(c *record.Candidate) { c.TopScore, c.Confidence = top, &conf })
	}
	for _, tt := range []struct {
		score, top, conf float64
		set              Settings
		want             Band
	}{
		{0.5, 0.9, 0.39, set, BandSilent},
		{0.5, 0.9, 0.4, set, BandSuggest}, // far below the top and every score floor: the judge decides
		{0.5, 0.9, 0.599, set, BandSuggest},
		{0.5, 0.9, 0.6, set, BandInject},
		{0.75, 0.75, 0.99, off, BandSuggest}, // the user's score thresholds win
		{0.5, 0.9, 0.99, off, BandSilent},
		{0.85, 0.85, 0.01, off, BandInject},
	} {
		band, why := BandOf(withConf(tt.score, tt.top, tt.conf), tt.set)
		if band != tt.want || why == "" {
			t.Errorf("score %.2f, confidence %.3f, judged %+v: %s (%s), want %s", tt.score, tt.conf, tt.set.Judged, band, why, tt.want)
		}
	}
	// A candidate without a confidence (not among the judged, or no judge)
	// is read by its score as ever.
	if band, _ := BandOf(cand("b", 0.75, func(c *record.Candidate) { c.TopScore = 0.75 }), set); band != BandSuggest {
		t.Errorf("unjudged candidate: %s, want %s", band, BandSuggest)
	}
}

type listedSeen struct {
	fakeSeen
	shown map[string]string
}

func (l listedSeen) Lookup(string) (Seen, error) { return l, nil }
func (l listedSeen) Shown(id string) string      { return l.shown[id] }

// A session that knows how the host lists its skills passes that on with
// each skill injected or suggested.
func TestShownFromTheSession(t *testing.T) {
	seen := listedSeen{shown: map[string]string{"a": "bare", "b": "absent", "c": "bare"}}
	set := base
	set.ScoreMargin = 1
	got := map[string]string{}
	for _, s := range selections(t, set, seen, cand("a", 0.9, nil), cand("b", 0.45, nil), cand("c", 0.1, nil)) {
		got[s.ID] = s.Decision + " " + s.Shown
	}
	want := map[string]string{"a": "inject bare", "b": "suggest absent", "c": "drop "}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %q, want %q", id, got[id], w)
		}
	}
}

package ledger

import (
	"testing"
	"time"
)

func TestStats(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	tick := func() time.Time { now = now.Add(time.Second); return now }
	a := New("a")
	a.MarkLoaded("pm", SourceSki, tick())   // inject
	a.MarkLoaded("pm", SourceModel, tick()) // followed
	a.MarkLoaded("helm", SourceSki, tick()) // inject, not followed
	a.MarkSuggested("csv", tick())
	a.Rearm(tick())
	a.MarkLoaded("helm", SourceModel, tick()) // after a rearm: not a follow-up
	b := New("b")
	b.MarkLoaded("pm", SourceSki, tick())
	b.MarkLoaded("pm", SourceUser, tick())
	got := Stats([]*Ledger{a, b})
	want := map[string]SkillStats{
		"pm":   {Kind: "stats", ID: "pm", Sessions: 2, Injected: 2, Followed: 1, FollowRate: 0.5, ModelLoaded: 1, UserInvoked: 1},
		"helm": {Kind: "stats", ID: "helm", Sessions: 1, Injected: 1, ModelLoaded: 1},
		"csv":  {Kind: "stats", ID: "csv", Sessions: 1, Suggested: 1},
	}
	if len(got) != 3 || got[0].ID != "pm" {
		t.Fatalf("order: %+v", got)
	}
	for _, s := range got {
		if s != want[s.ID] {
			t.Errorf("%s: got %+v, want %+v", s.ID, s, want[s.ID])
		}
	}
}

// A search's finds count per skill, and a load after one counts once as
// found-then-loaded; skill_load loads count apart.
func TestStatsOfTheModelsTools(t *testing.T) {
	now := time.Unix(1700000000, 0)
	l := New("s")
	l.MarkSearched([]string{"a", "b"}, now)
	l.MarkLoaded("a", SourceTool, now)
	l.MarkLoaded("a", SourceModel, now)
	l.MarkSearched([]string{"b"}, now)
	stats := Stats([]*Ledger{l})
	by := map[string]SkillStats{}
	for _, s := range stats {
		by[s.ID] = s
	}
	if a, b := by["a"], by["b"]; a.Found != 1 || a.FoundLoaded != 1 || a.ToolLoads != 1 || a.ModelLoaded != 2 || b.Found != 2 || b.FoundLoaded != 0 {
		t.Fatalf("a %+v, b %+v", a, b)
	}
	if n := Searches([]*Ledger{l}); n != 2 {
		t.Fatalf("searches %d, want 2", n)
	}
}

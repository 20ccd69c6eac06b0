package calib

import (
	"fmt"
	"testing"

	"github.com/skill-inject/ski/internal/eval"
	"github.com/skill-inject/ski/internal/gate"
	"github.com/skill-inject/ski/internal/record"
)

// rows: positives whose expected skill scores from 0.60 to 0.89, negatives
// whose best scores from 0.50 to 0.74.
func rows() []eval.Labelled {
	var out []eval.Labelled
	for i := range 30 {
		id := fmt.Sprintf("s%d", i)
		c := record.Candidate{ID: id, Score: 0.60 + 0.01*float64(i), AutoInject: true, UserInvocable: true}
		c.TopScore = c.Score
		out = append(out, eval.Labelled{Case: eval.Case{Category: "direct", Groups: [][]string{{id}}}, Cands: []record.Candidate{c}})
	}
	for i := range 25 {
		c := record.Candidate{ID: "x", Score: 0.50 + 0.01*float64(i), AutoInject: true, UserInvocable: true}
		c.TopScore = c.Score
		out = append(out, eval.Labelled{Case: eval.Case{Category: "negative"}, Cands: []record.Candidate{c}})
	}
	return out
}

func TestFitKeepsTheLimits(t *testing.T) {
	f := Fitter{
		Base:    gate.Settings{MaxSkills: 2, MaxSuggestions: 3},
		Inject:  Range(0.40, 0.95, 0.01),
		Suggest: Range(0.40, 0.95, 0.01),
		Margin:  []float64{0.05},
		Set:     Scores,
		// 1 of 25 negatives may get a skill injected, 4 a suggestion.
		Limits: Limits{MaxFalseInjection: 0.04, MaxNoise: 0.16},
	}
	fit, err := f.Fit(rows())
	if err != nil {
		t.Fatal(err)
	}
	s := fit.Settings
	// The lowest inject threshold that lets at most one negative in is
	// 0.74; the lowest suggestion floor that lets at most four more is 0.70.
	if s.InjectSimilarity != 0.74 || s.MinSimilarity != 0.70 || s.ScoreMargin != 0.05 {
		t.Fatalf("fitted inject %.2f, suggest from %.2f, margin %.2f; want 0.74, 0.70, 0.05", s.InjectSimilarity, s.MinSimilarity, s.ScoreMargin)
	}
	if fit.Train.FalseInjection > 0.04 || fit.Train.SuggestionNoise > 0.16 {
		t.Fatalf("fit breaks its limits on its own rows: %+v", fit.Train)
	}
	if want := 16.0 / 30; fit.Train.GatedRecall < want-1e-9 {
		t.Fatalf("recall %.3f, want %.3f", fit.Train.GatedRecall, want)
	}
}

func TestRange(t *testing.T) {
	r := Range(0.1, 0.3, 0.05)
	if len(r) != 5 || r[0] != 0.1 || r[4] != 0.3 {
		t.Fatalf("range %v", r)
	}
}

// Near-miss rows hold the inject threshold up when MinNearMiss asks it to,
// and count for nothing when it does not.
func TestFitKeepsNearMissesRight(t *testing.T) {
	labelled := rows()
	// Ten near-misses that need no skill, their best candidate scoring
	// 0.75 to 0.84: above what the negatives let through.
	for i := range 10 {
		c := record.Candidate{ID: "y", Score: 0.75 + 0.01*float64(i), AutoInject: true, UserInvocable: true}
		c.TopScore = c.Score
		labelled = append(labelled, eval.Labelled{Case: eval.Case{Category: "near-miss"}, Cands: []record.Candidate{c}})
	}
	f := Fitter{
		Base:   gate.Settings{MaxSkills: 2, MaxSuggestions: 3},
		Inject: Range(0.40, 0.95, 0.01),
		Margin: []float64{0.05},
		Set:    Scores,
		Limits: Limits{MaxFalseInjection: 0.04, MaxNoise: 1},
	}
	for _, c := range []struct {
		min  float64
		want float64
	}{{0, 0.74}, {0.8, 0.83}, {1, 0.85}} {
		f.MinNearMiss = c.min
		fit, err := f.Fit(labelled)
		if err != nil {
			t.Fatal(err)
		}
		if got := fit.Settings.InjectSimilarity; got != c.want {
			t.Errorf("near-misses right at least %.0f%%: inject threshold %.2f, want %.2f", 100*c.min, got, c.want)
		}
	}
}

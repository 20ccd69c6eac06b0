// Package calib fits the gate's few calibration values (the inject
// threshold, the floor of the suggestion band, the score margin) on
// labelled prompts, by grid search under explicit limits on how often
// prompts that need no skill get one.
package calib

import (
	"fmt"
	"math"

	"github.com/skill-inject/ski/internal/eval"
	"github.com/skill-inject/ski/internal/gate"
	"github.com/skill-inject/ski/internal/record"
)

// Fitter searches a grid of gate values.
type Fitter struct {
	Base    gate.Settings // everything the grid does not set
	Inject  []float64     // inject thresholds tried
	Suggest []float64     // suggestion floors tried (only those below the inject threshold)
	Margin  []float64     // score margins tried
	// Set puts a point of the grid into settings: Scores or Confidences.
	Set func(s *gate.Settings, inject, floor, margin float64)
	Limits
}

// Limits are what a fit may not trade for injected recall.
type Limits struct {
	// MaxFalseInjection bounds the share of rows expecting no skill that get
	// one injected; MaxNoise the share that get a suggestion.
	MaxFalseInjection float64
	MaxNoise          float64
	// MinNearMiss is the least share of near-miss rows (prompts that share
	// words with a skill they do not need) the inject threshold must keep
	// right; 0 sets no limit, nor do rows without that category.
	MinNearMiss float64
}

// Scores sets the thresholds on the score, for unjudged candidates.
func Scores(s *gate.Settings, inject, floor, margin float64) {
	s.InjectSimilarity, s.MinSimilarity, s.ScoreMargin = inject, floor, margin
}

// Confidences sets the thresholds on the judge's confidence (margin unused).
func Confidences(s *gate.Settings, inject, floor, _ float64) {
	s.Judged.InjectConfidence, s.Judged.SuggestConfidence = inject, floor
}

// Range returns the values from lo to hi (inclusive) in steps of step.
func Range(lo, hi, step float64) []float64 {
	var out []float64
	for i := 0; ; i++ {
		v := math.Round((lo+float64(i)*step)*1e6) / 1e6
		if v > hi+1e-9 {
			return out
		}
		out = append(out, v)
	}
}

// Fitted is what a fit chose and what it scored on its own rows.
type Fitted struct {
	Settings gate.Settings
	Train    eval.Metrics
}

// Fit picks, first, the margin and inject threshold with the highest
// injected recall whose false injection stays within the limit (the
// highest threshold among equals, the most restrained), then the lowest
// suggestion floor whose suggestion noise stays within its limit.
func (f Fitter) Fit(train []eval.Labelled) (Fitted, error) {
	if len(f.Inject) == 0 || len(f.Margin) == 0 {
		return Fitted{}, fmt.Errorf("calib: empty grid")
	}
	best := Fitted{Settings: f.Base}
	bestRecall, bestInject, bestMargin, found := -1.0, 0.0, 0.0, false
	for _, margin := range f.Margin {
		for _, inject := range f.Inject {
			s := f.Base
			f.Set(&s, inject, inject, margin)
			m, negFI, nearMiss := score(train, s)
			ok := negFI <= f.MaxFalseInjection+1e-12 && nearMiss >= f.MinNearMiss-1e-12
			better := m.GatedRecall > bestRecall+1e-12 ||
				(math.Abs(m.GatedRecall-bestRecall) <= 1e-12 && inject > bestInject)
			if ok && (!found || better) {
				best, bestRecall, bestInject, bestMargin, found = Fitted{Settings: s, Train: m}, m.GatedRecall, inject, margin, true
			}
		}
	}
	if !found {
		// Nothing meets the limit: the most restrained point of the grid.
		s := f.Base
		bestInject, bestMargin = f.Inject[len(f.Inject)-1], f.Margin[0]
		f.Set(&s, bestInject, bestInject, bestMargin)
		m, _, _ := score(train, s)
		best = Fitted{Settings: s, Train: m}
	}
	for _, floor := range f.Suggest {
		if floor >= bestInject {
			continue
		}
		s := best.Settings
		f.Set(&s, bestInject, floor, bestMargin)
		m, _, _ := score(train, s)
		if m.SuggestionNoise <= f.MaxNoise+1e-12 && m.FalseInjection <= best.Train.FalseInjection+1e-12 {
			best = Fitted{Settings: s, Train: m}
			break
		}
	}
	return best, nil
}

// Decider returns the fit as an eval.Fitter: the fitted settings, on a
// fresh session.
func (f Fitter) Decider() eval.Fitter {
	return eval.FitterFunc(func(train []eval.Labelled) (eval.Decider, error) {
		fit, err := f.Fit(train)
		if err != nil {
			return nil, err
		}
		return func(cands []record.Candidate) []record.Selection { return gate.Decide(cands, fit.Settings, nil) }, nil
	})
}

// score gates every row with s, on a fresh session, and returns the
// metrics, the false injection of the negative rows (generic prompts that
// need no skill: what MaxFalseInjection bounds), or of every row expecting
// none when there are no negative rows, and the share of near-miss rows
// right (1 when there are none: what MinNearMiss bounds).
func score(rows []eval.Labelled, s gate.Settings) (all eval.Metrics, negFI, nearMiss float64) {
	outs := make([]eval.Outcome, len(rows))
	var neg, near []eval.Outcome
	for i, r := range rows {
		outs[i] = eval.Score(r.Case, gate.Decide(r.Cands, s, nil))
		switch r.Category {
		case "negative":
			neg = append(neg, outs[i])
		case "near-miss":
			near = append(near, outs[i])
		}
	}
	all = eval.Summarise(outs)
	negFI, nearMiss = all.FalseInjection, 1
	if len(neg) > 0 {
		negFI = eval.Summarise(neg).FalseInjection
	}
	if len(near) > 0 {
		nearMiss = eval.Summarise(near).Right
	}
	return all, negFI, nearMiss
}

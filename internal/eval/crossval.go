package eval

import (
	"cmp"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/render"
	"github.com/skill-inject/ski/internal/skill"
)

// Labelled is a case with the candidates the ranking gave it, before any
// gate: what a calibration is fitted and scored on.
type Labelled struct {
	Case
	Cands []record.Candidate
}

// Decider applies fitted values to one prompt's candidates (in rank order)
// and returns the gate's selections.
type Decider func(cands []record.Candidate) []record.Selection

// Fitter fits a Decider on labelled rows.
type Fitter interface {
	Fit(train []Labelled) (Decider, error)
}

// FitterFunc adapts a function to Fitter.
type FitterFunc func(train []Labelled) (Decider, error)

// Fit calls f.
func (f FitterFunc) Fit(train []Labelled) (Decider, error) { return f(train) }

// Folds deals cases into k folds grouped by skill: every row that expects a
// skill sits in the fold of its first expected id (so no skill's rows are
// on both sides of a split), skills are dealt to the fold with the fewest
// rows so far (most rows first), and rows expecting none are dealt round
// robin. It returns each case's fold, in 0..k-1.
func Folds(cases []Case, k int) []int {
	if k < 2 {
		k = 2
	}
	count := map[string]int{}
	for _, c := range cases {
		if id := firstID(c); id != "" {
			count[id]++
		}
	}
	skills := make([]string, 0, len(count))
	for id := range count {
		skills = append(skills, id)
	}
	slices.SortFunc(skills, func(a, b string) int {
		return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b))
	})
	load := make([]int, k)
	foldOf := map[string]int{}
	for _, id := range skills {
		f := slices.Index(load, slices.Min(load))
		foldOf[id] = f
		load[f] += count[id]
	}
	folds := make([]int, len(cases))
	next := 0
	for i, c := range cases {
		if id := firstID(c); id != "" {
			folds[i] = foldOf[id]
			continue
		}
		folds[i] = next % k
		next++
	}
	return folds
}

// firstID is the first expected id of a case, or "" for one expecting none.
func firstID(c Case) string {
	if len(c.Groups) == 0 || len(c.Groups[0]) == 0 {
		return ""
	}
	return c.Groups[0][0]
}

// Tokens estimates the tokens a prompt's selections add to it.
type Tokens func(sels []record.Selection) int

// CrossValidate fits f on all folds but one and scores the left-out fold,
// for each of k folds (Folds): every outcome is out of fold. It also fits
// on every row and scores the same rows, the in-sample outcomes, so the gap
// shows. tokens may be nil.
func CrossValidate(rows []Labelled, f Fitter, k int, tokens Tokens) (oof, inSample []Outcome, err error) {
	cases := make([]Case, len(rows))
	for i, r := range rows {
		cases[i] = r.Case
	}
	folds := Folds(cases, k)
	oof = make([]Outcome, len(rows))
	for fold := range k {
		var train []Labelled
		for i, r := range rows {
			if folds[i] != fold {
				train = append(train, r)
			}
		}
		decide, err := f.Fit(train)
		if err != nil {
			return nil, nil, fmt.Errorf("fold %d: %w", fold+1, err)
		}
		for i, r := range rows {
			if folds[i] == fold {
				oof[i] = scoreRow(r, decide, tokens)
			}
		}
	}
	decide, err := f.Fit(rows)
	if err != nil {
		return nil, nil, fmt.Errorf("all rows: %w", err)
	}
	inSample = make([]Outcome, len(rows))
	for i, r := range rows {
		inSample[i] = scoreRow(r, decide, tokens)
	}
	return oof, inSample, nil
}

func scoreRow(r Labelled, decide Decider, tokens Tokens) Outcome {
	sels := decide(r.Cands)
	o := Score(r.Case, sels)
	if tokens != nil {
		o.Tokens = tokens(sels)
	}
	return o
}

// JudgeSamples returns the judge's features of every judged candidate of
// the rows that are not mentions, and whether some group expects it.
func JudgeSamples(rows []Labelled) (x [][]float64, y []bool) {
	for _, r := range rows {
		if r.Category == "mention" {
			continue
		}
		for _, c := range r.Cands {
			if c.Features == nil {
				continue
			}
			x = append(x, c.Features)
			y = append(y, expects(r.Case, c.ID))
		}
	}
	return x, y
}

// expects reports whether some group of c holds id.
func expects(c Case, id string) bool {
	for _, g := range c.Groups {
		if slices.Contains(g, id) {
			return true
		}
	}
	return false
}

// ContextTokens estimates the tokens the host adds to a prompt: the text
// ski-render gives the model for the selections (with default settings),
// at four characters a token. With bare, every skill counts as one the
// host's listing shows by name alone (ski then adds its description).
func ContextTokens(host string, set render.Settings, bare bool) Tokens {
	o := render.Options{Host: host, Settings: func(string) (render.Settings, error) { return set, nil }, ReadBody: skill.ReadBodyAndFiles,
		Describe: func(path string) string { d, _ := skill.ReadDescription(path); return d }}
	return func(sels []record.Selection) int {
		if bare {
			sels = slices.Clone(sels)
			for i := range sels {
				sels[i].Shown = "bare"
			}
		}
		text, err := o.Context(sels)
		if err != nil {
			return 0
		}
		return (utf8.RuneCountInString(text) + 3) / 4
	}
}

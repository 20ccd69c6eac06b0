package eval

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/render"
)

// syntheticCases are rows like dev.tsv's: skills with a few rows each,
// some rows with alternatives or several groups, rows expecting none.
func syntheticCases() []Case {
	var cases []Case
	for s := range 40 {
		id := fmt.Sprintf("repo/skill-%02d", s)
		for r := range 1 + s%4 {
			c := Case{Line: len(cases) + 2, Category: "direct", Prompt: fmt.Sprintf("p%d-%d", s, r), Groups: [][]string{{id}}}
			if r == 1 {
				c.Groups[0] = append(c.Groups[0], fmt.Sprintf("repo/skill-%02d", (s+1)%40))
			}
			if r == 2 {
				c.Groups = append(c.Groups, []string{fmt.Sprintf("repo/skill-%02d", (s+7)%40)})
			}
			cases = append(cases, c)
		}
	}
	for n := range 23 {
		cases = append(cases, Case{Line: len(cases) + 2, Category: "negative", Prompt: fmt.Sprintf("neg%d", n)})
	}
	return cases
}

// devCases reads shared/eval/dev.tsv when SKI_SHARED names the shared
// folder (CI sets it; it must then exist).
func devCases(t *testing.T) []Case {
	shared := os.Getenv("SKI_SHARED")
	if shared == "" {
		return nil
	}
	f, err := os.Open(filepath.Join(shared, "eval", "dev.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases, err := ReadTSV(f)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// caseSets are the labelled sets the split is tested on: the synthetic
// one, and dev.tsv when SKI_SHARED names the shared folder.
func caseSets(t *testing.T) map[string][]Case {
	sets := map[string][]Case{"synthetic": syntheticCases()}
	if dev := devCases(t); dev != nil {
		sets["dev.tsv"] = dev
	}
	return sets
}

func TestFoldsKeepEachSkillOnOneSide(t *testing.T) {
	sets := caseSets(t)
	for name, cases := range sets {
		for _, k := range []int{2, 5, 10} {
			folds := Folds(cases, k)
			if !slices.Equal(folds, Folds(cases, k)) {
				t.Fatalf("%s k=%d: folds differ between runs", name, k)
			}
			foldOf := map[string]int{}
			perFold := make([]int, k)
			negPerFold := make([]int, k)
			for i, c := range cases {
				f := folds[i]
				if f < 0 || f >= k {
					t.Fatalf("%s k=%d: row %d in fold %d", name, k, c.Line, f)
				}
				perFold[f]++
				id := firstID(c)
				if id == "" {
					negPerFold[f]++
					continue
				}
				if g, ok := foldOf[id]; ok && g != f {
					t.Fatalf("%s k=%d: rows expecting %s sit in folds %d and %d", name, k, id, g, f)
				}
				foldOf[id] = f
			}
			if slices.Max(negPerFold)-slices.Min(negPerFold) > 1 {
				t.Errorf("%s k=%d: rows expecting none not dealt round robin: %v", name, k, negPerFold)
			}
			if slices.Min(perFold) == 0 {
				t.Errorf("%s k=%d: an empty fold: %v", name, k, perFold)
			}
		}
	}
}

// memoriser is the leak canary: a "feature" that remembers the answer of
// each row it is fitted on (the skill the row expects first, the one its
// fold is chosen by) and injects the best candidate it remembers. With no
// skill on both sides of a split it knows nothing of the left-out fold.
func memoriser(train []Labelled) (Decider, error) {
	seen := map[string]bool{}
	for _, r := range train {
		if id := firstID(r.Case); id != "" {
			seen[id] = true
		}
	}
	return func(cands []record.Candidate) []record.Selection {
		sels := make([]record.Selection, len(cands))
		done := false
		for i, c := range cands {
			sels[i] = record.Selection{Candidate: c, Decision: record.DecisionDrop}
			if !done && seen[c.ID] {
				sels[i].Decision, done = record.DecisionInject, true
			}
		}
		return sels
	}, nil
}

// rankedRows gives each case five candidates: for a case expecting skills,
// the first expected id at a random rank among distractors no row expects;
// for one expecting none, distractors only.
func rankedRows(cases []Case, seed uint64) []Labelled {
	rnd := rand.New(rand.NewPCG(seed, 1))
	rows := make([]Labelled, len(cases))
	for i, c := range cases {
		var cands []record.Candidate
		for range 5 {
			cands = append(cands, record.Candidate{ID: fmt.Sprintf("distractor/%d", rnd.IntN(50))})
		}
		if id := firstID(c); id != "" {
			cands[rnd.IntN(len(cands))].ID = id
		}
		for r := range cands {
			cands[r].Rank, cands[r].Score = r+1, 0.9-0.05*float64(r)
		}
		rows[i] = Labelled{Case: c, Cands: cands}
	}
	return rows
}

func TestLeakCanaryScoresAtChanceOutOfFold(t *testing.T) {
	sets := caseSets(t)
	for name, cases := range sets {
		rows := rankedRows(cases, 7)
		oof, in, err := CrossValidate(rows, FitterFunc(memoriser), 5, nil)
		if err != nil {
			t.Fatal(err)
		}
		inM := Summarise(in)
		// In sample the canary finds every first expected skill among the
		// candidates; out of fold its memory holds none of the left-out
		// fold's first skills: it does no better than never injecting.
		firstCovered := func(outs []Outcome) float64 {
			hit, n := 0, 0
			for _, o := range outs {
				if id := firstID(o.Case); id != "" {
					n++
					if slices.Contains(o.Injected, id) {
						hit++
					}
				}
			}
			return float64(hit) / float64(n)
		}
		if got := firstCovered(in); got < 0.95 {
			t.Errorf("%s: in-sample the canary covers %.2f of first skills, want ~1 (recall %.2f)", name, got, inM.GatedRecall)
		}
		if got := firstCovered(oof); got != 0 {
			t.Errorf("%s: out of fold the canary covers %.2f of first skills: a skill's rows are on both sides of a split", name, got)
		}
		// A split by rows, not by skill, leaks: the same canary looks good.
		leaky := make([]Labelled, len(rows))
		copy(leaky, rows)
		leakyOOF := 0
		for i, r := range leaky {
			train := slices.Delete(slices.Clone(leaky), i, i+1)
			decide, _ := memoriser(train)
			o := Score(r.Case, decide(r.Cands))
			if id := firstID(r.Case); id != "" && slices.Contains(o.Injected, id) {
				leakyOOF++
			}
		}
		if leakyOOF == 0 {
			t.Errorf("%s: the canary found nothing even with a leaky split: the test cannot fail", name)
		}
	}
}

func TestCheckFloor(t *testing.T) {
	r := Report{Model: "m", Overall: Metrics{Top1: 0.90, GatedRecall: 0.80, SuggestionNoise: 0.10},
		Categories: map[string]Metrics{"negative": {FalseInjection: 0.02}}}
	doc := "# quality\n\n    floor dev m top1=91.5 injected=81 fp_negative=3.5 noise=8.5\n"
	if err := CheckFloor(r, doc, "dev", 2); err != nil {
		t.Fatalf("within 2 points: %v", err)
	}
	for _, bad := range []string{"floor dev m top1=92.5", "floor dev m fp_negative=-0.5", "floor dev m noise=7.9"} {
		if err := CheckFloor(r, bad, "dev", 2); err == nil || !strings.Contains(err.Error(), "worse than the floor") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if err := CheckFloor(r, "floor dev other top1=1", "dev", 2); err == nil {
		t.Error("no line for the model passes")
	}
	if err := CheckFloor(r, "floor dev m recall=1", "dev", 2); err == nil {
		t.Error("an unknown metric passes")
	}
}

// With bare, the tokens count the description ski adds for a skill the
// host lists by name alone.
func TestContextTokensBare(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo", "SKILL.md")
	os.MkdirAll(filepath.Dir(path), 0o755)
	desc := strings.Repeat("Cleans messy tables. ", 10)
	os.WriteFile(path, []byte("---\nname: demo\ndescription: "+desc+"\n---\nBody.\n"), 0o644)
	sels := []record.Selection{{Candidate: record.Candidate{ID: "demo", Name: "demo", Invoke: "demo", Path: path, Dir: filepath.Dir(path)}, Decision: record.DecisionInject}}
	set := render.Settings{Mode: "directive", Strength: "soft", CharBudget: 1000}
	listed, bare := ContextTokens(record.HostClaude, set, false)(sels), ContextTokens(record.HostClaude, set, true)(sels)
	if added := bare - listed; added < 35 || added > 50 {
		t.Errorf("a bare name's description adds %d tokens (%d, %d), want the description of up to 150 characters", added, listed, bare)
	}
	if sels[0].Shown != "" {
		t.Error("the caller's selections were changed")
	}
}

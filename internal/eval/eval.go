// Package eval measures how well ski picks skills: it runs labelled prompts
// (the TSV format of shared/eval) through the real ranking and gates and
// scores what would be injected.
package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/skill-inject/ski/internal/mention"
	"github.com/skill-inject/ski/internal/record"
)

// Categories of prompts, in report order: those of shared/eval, and of
// ski's own catalogs (testdata/judge) "followup" (a message in the middle
// of a conversation, which names a skill's job or expects none) and
// "adjacent" (a real request next to a skill's topic, in its words, that
// no skill fits).
var Categories = []string{"direct", "indirect", "followup", "real", "mention", "near-miss", "adjacent", "negative"}

// Case is one labelled prompt.
type Case struct {
	Line     int
	Category string
	Prompt   string
	// Groups are the required groups of alternatives; empty means no skill
	// should be injected ("-").
	Groups [][]string
}

// ReadTSV parses the eval TSV format: a header, then category, prompt,
// expected and notes separated by tabs.
func ReadTSV(r io.Reader) ([]Case, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var cases []Case
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if line == 1 || text == "" {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) < 3 {
			return nil, fmt.Errorf("line %d: want at least 3 tab-separated columns, got %d", line, len(cols))
		}
		if !slices.Contains(Categories, cols[0]) {
			return nil, fmt.Errorf("line %d: category %q: want one of %s", line, cols[0], strings.Join(Categories, ", "))
		}
		c := Case{Line: line, Category: cols[0], Prompt: cols[1]}
		if exp := strings.TrimSpace(cols[2]); exp != "-" {
			for _, g := range strings.Split(exp, ",") {
				c.Groups = append(c.Groups, strings.Split(strings.TrimSpace(g), "|"))
			}
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	return cases, nil
}

// The halves of a labelled set, for tuning on one and checking on the other.
const (
	Tune = "tune" // the 1st, 3rd, 5th, ... row of each category
	Held = "held" // the 2nd, 4th, ... row of each category
)

// Half returns the cases of one half (Tune or Held): rows alternate between
// the halves within each category, so both have every category.
func Half(cases []Case, half string) []Case {
	seen := map[string]int{}
	var out []Case
	for _, c := range cases {
		n := seen[c.Category]
		seen[c.Category] = n + 1
		if (n%2 == 0) == (half == Tune) {
			out = append(out, c)
		}
	}
	return out
}

// Outcome is what the pipeline did with one case.
type Outcome struct {
	Case
	Selections []record.Selection
	Injected   []string // ids
	Suggested  []string // ids named in the suggestion line
	Top        string   // best candidate that is not a /name invocation
	TopScore   float64
	Right      bool // the row's answer is right as a whole
	Covered    int  // groups covered by Injected
	Reached    int  // groups covered by Injected or Suggested
	Correct    int  // injected ids that belong to some group
	Tokens     int  // tokens the hook adds to the prompt (estimated)
}

// Slash reports whether the case is the user invoking a skill with /name.
func (o Outcome) Slash() bool {
	for _, s := range o.Selections {
		if s.Mention == mention.Slash {
			return true
		}
	}
	return false
}

// Score fills in the outcome's verdict from its selections.
func Score(c Case, sels []record.Selection) Outcome {
	o := Outcome{Case: c, Selections: sels}
	hostLoads := map[string]bool{}
	for _, s := range sels {
		switch s.Decision {
		case record.DecisionInject:
			o.Injected = append(o.Injected, s.ID)
		case record.DecisionHostLoads:
			hostLoads[s.ID] = true
		case record.DecisionSuggest:
			o.Suggested = append(o.Suggested, s.ID)
		}
		if o.Top == "" && s.Mention != mention.Slash {
			o.Top, o.TopScore = s.ID, s.Score
		}
	}
	for _, g := range c.Groups {
		covered, reached := false, false
		for _, id := range g {
			in := slices.Contains(o.Injected, id) || hostLoads[id]
			covered = covered || in
			reached = reached || in || slices.Contains(o.Suggested, id)
		}
		if covered {
			o.Covered++
		}
		if reached {
			o.Reached++
		}
	}
	for _, id := range o.Injected {
		if expects(c, id) {
			o.Correct++
		}
	}
	o.Right = o.Covered == len(c.Groups) && o.Correct == len(o.Injected)
	return o
}

// Metrics summarise outcomes.
type Metrics struct {
	N               int     `json:"n"`
	Top1            float64 `json:"top1"`             // positives whose best candidate is expected
	GatedRecall     float64 `json:"gated_recall"`     // injected recall: mean share of groups covered by what is injected
	ReachedRecall   float64 `json:"reached_recall"`   // mean share of groups covered by what is injected or suggested
	Precision       float64 `json:"precision"`        // injected ids that are expected
	FalseInjection  float64 `json:"false_injection"`  // "-" rows with anything injected
	SuggestionNoise float64 `json:"suggestion_noise"` // "-" rows with anything suggested
	Right           float64 `json:"right"`            // rows right as a whole
	HostValue       float64 `json:"host_value"`       // gated recall - 0.15 x false injection
	TokensMean      float64 `json:"tokens_mean"`      // tokens added per prompt, mean
	TokensP95       float64 `json:"tokens_p95"`       // tokens added per prompt, 95th percentile
	positives       int
	negatives       int
}

// Summarise computes metrics over outcomes.
func Summarise(outs []Outcome) Metrics {
	var m Metrics
	var top1, recall, reached, falseInj, noise, right float64
	injected, correct := 0, 0
	tokens := make([]int, 0, len(outs))
	for _, o := range outs {
		m.N++
		tokens = append(tokens, o.Tokens)
		if o.Right {
			right++
		}
		if len(o.Groups) == 0 {
			m.negatives++
			if len(o.Injected) > 0 {
				falseInj++
			}
			if len(o.Suggested) > 0 {
				noise++
			}
			continue
		}
		m.positives++
		recall += float64(o.Covered) / float64(len(o.Groups))
		reached += float64(o.Reached) / float64(len(o.Groups))
		injected += len(o.Injected)
		correct += o.Correct
		if o.Slash() {
			top1++ // the host loads exactly what was named
			continue
		}
		for _, g := range o.Groups {
			if slices.Contains(g, o.Top) {
				top1++
				break
			}
		}
	}
	div := func(a float64, b int) float64 {
		if b == 0 {
			return 0
		}
		return a / float64(b)
	}
	m.Top1 = div(top1, m.positives)
	m.GatedRecall = div(recall, m.positives)
	m.ReachedRecall = div(reached, m.positives)
	m.Precision = div(float64(correct), injected)
	m.FalseInjection = div(falseInj, m.negatives)
	m.SuggestionNoise = div(noise, m.negatives)
	m.Right = div(right, m.N)
	m.HostValue = m.GatedRecall - 0.15*m.FalseInjection
	m.TokensMean, m.TokensP95 = meanP95(tokens)
	return m
}

// meanP95 returns the mean and the 95th percentile (nearest rank) of xs.
func meanP95(xs []int) (mean, p95 float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	sum := 0
	for _, x := range sorted {
		sum += x
	}
	rank := (95*len(sorted) + 99) / 100 // ceil(0.95 n), 1-based
	return float64(sum) / float64(len(sorted)), float64(sorted[rank-1])
}

// Report is the whole evaluation.
type Report struct {
	Model      string             `json:"model"`
	Skills     int                `json:"skills"`
	Overall    Metrics            `json:"overall"`
	Positives  Metrics            `json:"positives"` // direct, indirect and real
	Categories map[string]Metrics `json:"categories"`
}

// NewReport groups outcomes by category.
func NewReport(model string, skills int, outs []Outcome) Report {
	r := Report{Model: model, Skills: skills, Overall: Summarise(outs), Categories: map[string]Metrics{}}
	by := map[string][]Outcome{}
	var pos []Outcome
	for _, o := range outs {
		by[o.Category] = append(by[o.Category], o)
		if o.Category == "direct" || o.Category == "indirect" || o.Category == "real" {
			pos = append(pos, o)
		}
	}
	for cat, os := range by {
		r.Categories[cat] = Summarise(os)
	}
	r.Positives = Summarise(pos)
	return r
}

// WriteText writes the report as a table.
func (r Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "model %s, %d skills\n\n", r.Model, r.Skills)
	return r.writeTable(w, "")
}

// writeTable writes the per-category table, each metric's header prefixed
// with label (empty for none).
func (r Report) writeTable(w io.Writer, label string) error {
	if label != "" {
		fmt.Fprintf(w, "%s\n", label)
	}
	fmt.Fprintf(w, "%-10s %5s %7s %8s %8s %9s %8s %7s %7s %8s %7s\n", "category", "n", "top-1", "injected", "reached", "precision", "false-inj", "noise", "right", "tokens", "p95")
	row := func(name string, m Metrics) {
		fmt.Fprintf(w, "%-10s %5d %6.1f%% %7.1f%% %7.1f%% %8.1f%% %8.1f%% %6.1f%% %6.1f%% %8.1f %7.0f\n", name, m.N,
			100*m.Top1, 100*m.GatedRecall, 100*m.ReachedRecall, 100*m.Precision, 100*m.FalseInjection,
			100*m.SuggestionNoise, 100*m.Right, m.TokensMean, m.TokensP95)
	}
	cats := make([]string, 0, len(r.Categories))
	for _, c := range Categories {
		if _, ok := r.Categories[c]; ok {
			cats = append(cats, c)
		}
	}
	for _, c := range cats {
		row(c, r.Categories[c])
	}
	row("positives", r.Positives)
	row("all", r.Overall)
	fmt.Fprintf(w, "\nhost-value (gated recall - 0.15 x false injection): %.3f\n", r.Overall.HostValue)
	fmt.Fprintf(w, "near-misses right: %.1f%%   mentions exact: %.1f%%\n",
		100*r.Categories["near-miss"].Right, 100*r.Categories["mention"].Right)
	return nil
}

// CVReport is an evaluation of fitted values: out of fold, with the
// in-sample numbers beside.
type CVReport struct {
	Folds     int    `json:"folds"`
	OutOfFold Report `json:"out_of_fold"`
	InSample  Report `json:"in_sample"`
	Fitted    string `json:"fitted"` // the values a fit on every row chooses
}

// WriteText writes both tables.
func (r CVReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "model %s, %d skills, %d-fold cross-validation grouped by skill\n", r.OutOfFold.Model, r.OutOfFold.Skills, r.Folds)
	fmt.Fprintf(w, "fitted on every row: %s\n\n", r.Fitted)
	if err := r.OutOfFold.writeTable(w, "out of fold:"); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return r.InSample.writeTable(w, "in sample:")
}

// WriteMisses lists the rows that went wrong, for tuning by eye.
func WriteMisses(w io.Writer, outs []Outcome) {
	sorted := append([]Outcome(nil), outs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Category < sorted[j].Category })
	for _, o := range sorted {
		if o.Right {
			continue
		}
		exp := "-"
		if len(o.Groups) > 0 {
			parts := make([]string, len(o.Groups))
			for i, g := range o.Groups {
				parts[i] = strings.Join(g, "|")
			}
			exp = strings.Join(parts, ",")
		}
		fmt.Fprintf(w, "line %d [%s] %q\n  expected %s\n  injected %v; top %s (%.3f)\n", o.Line, o.Category, o.Prompt, exp, o.Injected, o.Top, o.TopScore)
	}
}

// writeLines writes a JSON line per row to a new file at path: each(i)
// is row i of n.
func writeLines(path string, n int, each func(i int) any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for i := 0; i < n; i++ {
		if err := enc.Encode(each(i)); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteCandidatesFile writes one JSON line per outcome to path: the case and
// every ranked candidate with the gate's decision, for analysis outside ski.
func WriteCandidatesFile(path string, outs []Outcome) error {
	return writeLines(path, len(outs), func(i int) any {
		o := outs[i]
		return struct {
			Line       int                `json:"line"`
			Category   string             `json:"category"`
			Prompt     string             `json:"prompt"`
			Expected   [][]string         `json:"expected"`
			Selections []record.Selection `json:"selections"`
		}{o.Case.Line, o.Case.Category, o.Case.Prompt, o.Case.Groups, o.Selections}
	})
}

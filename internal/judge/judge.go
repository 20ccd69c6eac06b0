// Package judge turns a prompt's ranked candidates into the confidence that
// each is the skill the prompt needs: a logistic regression over features
// that carry from one skill catalog to another (the score relative to what
// the same catalog gives generic prompts, the gaps to the neighbours, the
// lexical evidence, the prompt's intent). Its weights are fitted on the
// purpose-written catalogs under testdata/judge, never on shared/eval.
package judge

import (
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
)

// Judged is how many of a prompt's best candidates get a confidence; the
// rest get 0.
const Judged = 5

// Background is where a catalog's best score falls for generic prompts
// (Prompts): its median and 90th percentile. A score is judged relative to
// them, so a catalog that scores everything high or low is read alike.
type Background struct {
	Q50 float64 `json:"q50"`
	Q90 float64 `json:"q90"`
	// Scoring names the ranking weights the scores were measured under
	// (background.Scoring): with other weights they fall elsewhere.
	Scoring string `json:"scoring,omitempty"`
}

// MinSpread is the least distance between a valid background's quantiles:
// a catalog that gives nearly every generic prompt the same best score (a
// handful of skills sharing no words with them) has nothing to scale by,
// and its scores are read as they are.
const MinSpread = 0.01

// Valid reports whether the background can scale a score.
func (b Background) Valid() bool { return b.Q90-b.Q50 >= MinSpread }

//go:embed background.txt
var backgroundText string

// Prompts are the generic prompts (ordinary requests to a coding agent that
// no specialised skill fits) whose best scores make a catalog's Background.
func Prompts() []string { return Lines(backgroundText) }

// Lines returns the non-empty lines of a prompts file, trimmed.
func Lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Quantiles returns the Background of the best scores of the prompts.
func Quantiles(tops []float64) Background {
	if len(tops) == 0 {
		return Background{}
	}
	s := slices.Clone(tops)
	slices.Sort(s)
	return Background{Q50: quantile(s, 0.5), Q90: quantile(s, 0.9)}
}

// quantile interpolates linearly between the sorted values.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

// Input is what the judge reads of one candidate.
type Input struct {
	Score   float64 // the ranking's score
	Lexical float64 // its weighted BM25 part
	Mention bool    // the prompt names the skill: not judged
	// Asked is a mention other than /name: the user asked ski for that
	// skill, and no other candidate is judged (the gate's score margin
	// keeps them out, as it always has).
	Asked     bool
	SmallEdit bool // the prompt reads as a small edit or an explanation
	Intent    bool // the skill got the boost of the prompt's intent
}

// FeatureNames name the features, in order.
var FeatureNames = []string{"relative", "gap_top", "gap_next", "inverse_rank", "lexical", "no_lexical", "small_edit", "intent"}

// Features returns the features of each of the first Judged candidates
// that are not mentions (nil for the others, and for all when the user
// asked for a skill by name). cands are in rank order.
func Features(cands []Input, bg Background) [][]float64 {
	out := make([][]float64, len(cands))
	var order []int
	for i, c := range cands {
		if c.Asked {
			return out
		}
		if !c.Mention {
			order = append(order, i)
		}
	}
	if len(order) == 0 || !bg.Valid() {
		return out
	}
	top := cands[order[0]].Score
	for r, i := range order {
		if r >= Judged {
			break
		}
		c := cands[i]
		next := c.Score - 0.1
		if r+1 < len(order) {
			next = cands[order[r+1]].Score
		}
		out[i] = []float64{
			(c.Score - bg.Q50) / (bg.Q90 - bg.Q50),
			c.Score - top,
			c.Score - next,
			1 / float64(r+1),
			c.Lexical,
			flag(c.Lexical == 0),
			flag(c.SmallEdit),
			flag(c.Intent),
		}
	}
	return out
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Model is a fitted judge for one embedding model.
type Model struct {
	Model    string    `json:"model"`
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"` // standardisation, per feature
	Std      []float64 `json:"std"`
	Weights  []float64 `json:"weights"`
	Bias     float64   `json:"bias"`
	// TrainedOn says what the weights were fitted on.
	TrainedOn string `json:"trained_on"`
}

// MaxZ bounds each standardised feature: a value further out than any the
// judge was fitted on counts as the furthest it knows.
const MaxZ = 4

// Predict is the model's probability for one feature vector.
func (m *Model) Predict(f []float64) float64 {
	z := m.Bias
	for j, x := range f {
		z += m.Weights[j] * max(-MaxZ, min(MaxZ, (x-m.Mean[j])/m.Std[j]))
	}
	return sigmoid(z)
}

//go:embed models/*.json
var models embed.FS

// loaded holds the judges read so far, by model.
var loaded sync.Map

type loadResult struct {
	m   *Model
	err error
}

// For returns the fitted judge of an embedding model, or nil when it has
// none.
func For(model string) (*Model, error) {
	if r, ok := loaded.Load(model); ok {
		return r.(loadResult).m, r.(loadResult).err
	}
	m, err := read(model)
	loaded.Store(model, loadResult{m, err})
	return m, err
}

// Has reports whether an embedding model has a judge that loads.
func Has(model string) bool {
	m, err := For(model)
	return err == nil && m != nil
}

func read(model string) (*Model, error) {
	data, err := models.ReadFile("models/" + model + ".json")
	if err != nil {
		return nil, nil
	}
	return decode(data, "judge for "+model)
}

// Load reads a judge from a file (written by ski-eval --train-judge).
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decode(data, path)
}

func decode(data []byte, what string) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !slices.Equal(m.Features, FeatureNames) || len(m.Mean) != len(FeatureNames) || len(m.Std) != len(FeatureNames) || len(m.Weights) != len(FeatureNames) {
		return nil, fmt.Errorf("%s: fitted on features %v, want %v", what, m.Features, FeatureNames)
	}
	for j := range m.Std {
		if !(m.Std[j] > 0) {
			return nil, fmt.Errorf("%s: standard deviation %v of %s", what, m.Std[j], FeatureNames[j])
		}
	}
	return &m, nil
}

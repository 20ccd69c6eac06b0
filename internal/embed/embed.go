// Package embed turns text into unit vectors. An Embedder is the seam every
// backend sits behind: the offline lexical one here, ONNX models, or a
// long-lived embedder process.
package embed

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skill-inject/ski/internal/environ"
)

// Purpose says what a text is: asymmetric models treat queries differently.
type Purpose int

// Purposes.
const (
	Document Purpose = iota // a skill's text
	Query                   // a user's prompt
)

// Embedder embeds texts into L2-normalised vectors of Model().Dim floats.
type Embedder interface {
	Model() Model
	Embed(texts []string, purpose Purpose) ([][]float32, error)
	Close() error
}

// Model describes one embedding model and the gate values calibrated for it.
type Model struct {
	ID      string // stable id, stored in index files
	Backend string // "lexical" or "onnx"
	Dim     int
	// QueryPrefix is prepended to queries (never to documents).
	QueryPrefix string
	Pooling     string // "cls", "mean" or "" (lexical)
	MaxTokens   int    // longer inputs are truncated
	Quantised   bool   // int8 weights (dynamic quantisation)
	Files       []File // what the backend loads, by local file name
	// HFRepo and HFRevision say where "ski-embed --fetch" downloads Files
	// from on a Hugging Face endpoint.
	HFRepo, HFRevision string

	// Calibrated defaults; config keys override them.
	MinSimilarity    float64 // the floor of the suggestion band; below: dropped
	InjectSimilarity float64 // the floor of the injection band; between: suggested
	ScoreMargin      float64 // dropped when further than this below the top
	// InjectConfidence and SuggestConfidence are the floors of the two
	// bands on the judge's confidence (package judge), for candidates it
	// judged; the three above are for the others.
	InjectConfidence  float64
	SuggestConfidence float64
	KeywordBoost      float64 // added per keyword/alias hit (at most two)
	LexicalWeight     float64 // weight of the BM25 score added to the cosine
	BodyWeight        float64 // weight of the BM25 score against the whole body
	// IntentBoost weighs how far a skill's cosine to an intent's concept
	// (package intent) stands out among all skills' (above mean + 2 sd);
	// it is added to the skill's score when the prompt has that intent.
	IntentBoost float64
	// SmallEditPenalty is taken from every score of a prompt that asks
	// only for a small edit or an explanation (package intent).
	SmallEditPenalty float64
}

// File is one file a model needs.
type File struct {
	Name   string // local file name: "model.onnx", "tokenizer.json"
	SHA256 string // hex
	Size   int64
	HFPath string // path in the Hugging Face repository
}

// Env is what opening a backend may consult.
type Env struct {
	// Environ is the command's environment (model and runtime overrides,
	// the data and cache folders).
	Environ environ.Env
	Runtime string // ONNX Runtime shared library from config or flag; "" = search
	// OneQuery says the process opens the model to embed a prompt or two
	// and exit (ski-embed --query without a server): a backend may skip
	// load-time work that only pays off over many texts, where that
	// changes no vector. OpenOrLexical keeps it only when the first texts
	// embedded are queries (an index rebuilt on the way wants the work).
	OneQuery bool
	// Threads is how many threads one model run may use (0 means one):
	// more for an index build, one for prompts.
	Threads int
}

// LexicalID is the id of the offline lexical model.
const LexicalID = "lexical-v1"

// models is the table of every model ski knows.
var models = map[string]Model{
	LexicalID: {
		ID: LexicalID, Backend: "lexical", Dim: lexicalDim,
		MinSimilarity: 0.38, InjectSimilarity: 0.44, ScoreMargin: 0.08, KeywordBoost: 0.10, LexicalWeight: 0.016,
		BodyWeight: 0.006, IntentBoost: 0.5, SmallEditPenalty: 0.10,
	},
}

// Lookup returns the model with the given id.
func Lookup(id string) (Model, error) {
	m, ok := models[id]
	if !ok {
		return Model{}, fmt.Errorf("unknown model %q (known: %s)", id, strings.Join(ModelIDs(), ", "))
	}
	return m, nil
}

// ModelIDs lists the known model ids, sorted.
func ModelIDs() []string {
	ids := make([]string, 0, len(models))
	for id := range models {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Open returns an embedder for the model id. Backends other than lexical are
// registered by their packages through Register.
func Open(id string, env Env) (Embedder, error) {
	m, err := Lookup(id)
	if err != nil {
		return nil, err
	}
	if m.Backend == "lexical" {
		return NewLexical(), nil
	}
	b, ok := backends[m.Backend]
	if !ok {
		return nil, fmt.Errorf("model %q: backend %q is not built in", id, m.Backend)
	}
	return b.open(m, env)
}

// OpenOrLexical returns an embedder for the model that loads it on first
// use, so callers with nothing to embed pay nothing. When the model or its
// runtime is not installed it falls back to the lexical embedder with one
// warning.
func OpenOrLexical(id string, env Env, warn func(string)) Embedder {
	m, err := Lookup(id)
	if err == nil && m.Backend == "lexical" {
		return NewLexical()
	}
	if err == nil {
		b, ok := backends[m.Backend]
		if !ok {
			err = fmt.Errorf("model %q: backend %q is not built in", id, m.Backend)
		} else if err = b.check(m, env); err == nil {
			return &lazy{model: m, open: func(first Purpose) (Embedder, error) {
				e := env
				e.OneQuery = env.OneQuery && first == Query
				return b.open(m, e)
			}}
		}
	}
	warn(fmt.Sprintf("%v; using the lexical embedder (run scripts/setup.sh or ski-embed --fetch)", err))
	return NewLexical()
}

// lazy opens its model on the first Embed, telling it that call's purpose.
type lazy struct {
	model Model
	open  func(first Purpose) (Embedder, error)
	e     Embedder
}

func (l *lazy) Model() Model { return l.model }

func (l *lazy) Embed(texts []string, p Purpose) ([][]float32, error) {
	if l.e == nil {
		e, err := l.open(p)
		if err != nil {
			return nil, err
		}
		l.e = e
	}
	return l.e.Embed(texts, p)
}

func (l *lazy) Close() error {
	if l.e == nil {
		return nil
	}
	return l.e.Close()
}

// backend opens models of one kind; check says cheaply (without loading
// anything) whether a model looks installed.
type backend struct {
	open  func(Model, Env) (Embedder, error)
	check func(Model, Env) error
}

var backends = map[string]backend{}

// Register makes a backend available to Open and OpenOrLexical.
func Register(name string, open func(Model, Env) (Embedder, error), check func(Model, Env) error) {
	backends[name] = backend{open: open, check: check}
}

// BuiltIn reports whether models of backend can be opened by this binary.
func BuiltIn(backend string) bool {
	_, ok := backends[backend]
	return ok || backend == "lexical"
}

// Dot returns the dot product of two vectors of equal length, which is their
// cosine similarity when both are unit vectors.
func Dot(a, b []float32) float64 {
	n := min(len(a), len(b))
	var s float32
	for i := 0; i < n; i++ {
		s += a[i] * b[i]
	}
	return float64(s)
}

// Normalize scales v to unit length in place; a zero vector stays zero.
func Normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// DefaultModel is the model used when the config names none:
// bge-small-en-v1.5-q, or the lexical one in a build with the ski_lexical_only
// tag. It depends on the build's tags, not on the backends this binary
// registers, so ski-embed and ski-embed-onnx agree.
func DefaultModel() string { return defaultModel }

// Queries embeds prompts' texts as queries. An empty text (a bare "/name"
// command, a pasted trace with nothing else) gets the zero vector, which is
// similar to no skill, instead of whatever the model makes of nothing.
func Queries(e Embedder, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var some []string
	var at []int
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			out[i] = make([]float32, e.Model().Dim)
			continue
		}
		some = append(some, t)
		at = append(at, i)
	}
	if len(some) == 0 {
		return out, nil
	}
	vecs, err := e.Embed(some, Query)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(some) {
		return nil, fmt.Errorf("got %d vectors for %d texts", len(vecs), len(some))
	}
	for i, v := range vecs {
		out[at[i]] = v
	}
	return out, nil
}

// ModelDir returns the directory holding a model's files: SKI_MODEL_DIR/<id>,
// or SKI_MODEL_DIR itself when it holds the files directly, else
// $XDG_DATA_HOME/ski/models/<id>.
func ModelDir(m Model, e environ.Env) string {
	if d := e.ModelDir; d != "" {
		if len(m.Files) > 0 {
			if _, err := os.Stat(filepath.Join(d, m.ID, m.Files[0].Name)); err == nil {
				return filepath.Join(d, m.ID)
			}
		}
		return d
	}
	return filepath.Join(e.Dirs.Data, "models", m.ID)
}

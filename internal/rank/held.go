package rank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/vecfile"
)

// Settings are a ranking's options with every value worked out for one
// query: what another process needs to rank the query exactly as this one
// would (Options.Remote, Held.Rank).
type Settings struct {
	Top              int      `json:"top"`
	KeywordBoost     *float64 `json:"keyword_boost,omitempty"` // nil: the model's default
	SmallEditPenalty *float64 `json:"small_edit_penalty,omitempty"`
	LexicalWeight    *float64 `json:"lexical_weight,omitempty"`
	BodyWeight       *float64 `json:"body_weight,omitempty"`
	IntentBoost      *float64 `json:"intent_boost,omitempty"`
	NoJudge          bool     `json:"no_judge,omitempty"`
}

// settings works o out for a query of model from cwd. It is false when o
// holds what cannot leave this process (a judge of its own, features).
func (o Options) settings(model, cwd string) (Settings, bool) {
	if o.Judge != nil || o.Features {
		return Settings{}, false
	}
	s := Settings{Top: o.Top, LexicalWeight: o.LexicalWeight, BodyWeight: o.BodyWeight,
		IntentBoost: o.IntentBoost, NoJudge: o.NoJudge}
	if o.KeywordBoost != nil {
		v := o.KeywordBoost(model, cwd)
		s.KeywordBoost = &v
	}
	if o.SmallEditPenalty != nil {
		v := o.SmallEditPenalty(model, cwd)
		s.SmallEditPenalty = &v
	}
	return s, true
}

// options are the Options s stands for.
func (s Settings) options() Options {
	o := Options{Top: s.Top, LexicalWeight: s.LexicalWeight, BodyWeight: s.BodyWeight,
		IntentBoost: s.IntentBoost, NoJudge: s.NoJudge}
	if v := s.KeywordBoost; v != nil {
		o.KeywordBoost = func(string, string) float64 { return *v }
	}
	if v := s.SmallEditPenalty; v != nil {
		o.SmallEditPenalty = func(string, string) float64 { return *v }
	}
	return o
}

// heldMax is how many indexes a Held keeps: a server answers the few
// projects its user works in.
const heldMax = 4

// Held keeps indexes read for ranking, each until its file changes (another
// file, size or modification time at its path), so that a long-lived
// process (the embed server) ranks a query without reading its index
// again: with 10,000 skills, reading the vectors was most of a ranking.
// Indexes are copied into memory, not mapped, so one dropped is freed. It
// is safe for concurrent use; rankings take turns.
type Held struct {
	mu    sync.Mutex
	held  []heldIndex // most recently used first
	reads int         // indexes read, for tests
}

type heldIndex struct {
	path string
	file os.FileInfo
	cat  *Catalog
}

// Rank ranks the query record query against the index at path with the
// settings s (JSON of Settings) and returns the candidate lines, as Run
// would write them.
func (h *Held) Rank(path string, query, s []byte) ([]byte, error) {
	var set Settings
	if err := json.Unmarshal(s, &set); err != nil {
		return nil, fmt.Errorf("ranking settings: %w", err)
	}
	q, err := parseQuery(query)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	cat, err := h.catalog(path)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	w := ndjson.NewWriter(&buf)
	if err := cat.write(w, q, set.options()); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Prepare reads the index at path unless it is held as it is now, so the
// next ranking against it need not (builder.Watcher.Indexed); an index
// smaller than RemoteFrom is left alone, since ski-rank reads those itself.
func (h *Held) Prepare(path string) {
	if st, err := os.Stat(path); err != nil || st.Size() < RemoteFrom {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.catalog(path)
}

// catalog returns the index at path, read again when its file changed.
func (h *Held) catalog(path string) (*Catalog, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	if !st.Mode().IsRegular() {
		// A FIFO would hold every ranking up; a folder cannot be read.
		return nil, fmt.Errorf("index %s: not a regular file (%v)", path, st.Mode().Type())
	}
	for i, x := range h.held {
		if x.path != path {
			continue
		}
		h.held = append(h.held[:i], h.held[i+1:]...)
		if os.SameFile(x.file, st) && x.file.Size() == st.Size() && x.file.ModTime().Equal(st.ModTime()) {
			h.held = append([]heldIndex{x}, h.held...)
			return x.cat, nil
		}
		break
	}
	idx, err := vecfile.LoadRanking(path)
	if err != nil {
		return nil, err
	}
	h.reads++
	x := heldIndex{path: path, file: st, cat: NewCatalog(idx)}
	h.held = append([]heldIndex{x}, h.held[:min(len(h.held), heldMax-1)]...)
	return x.cat, nil
}

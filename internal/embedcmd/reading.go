package embedcmd

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/embedsrv"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/rank"
	"github.com/skill-inject/ski/internal/reader"
	"github.com/skill-inject/ski/internal/record"
)

// reading is the reader in the embed server: its model, loaded after the
// first request, the skill texts of the indexes it was asked about, each
// read again when its file changes, and its share of the prompts of hooks
// with the reader on (see prompted). No prompt waits for a load (see
// ready).
type reading struct {
	env   embed.Env
	share *reader.Share

	once   sync.Once
	opened atomic.Bool // once has run: model or err is set
	model  reader.Model
	err    error

	mu      sync.Mutex
	texts   map[string]heldTexts
	warming map[string]bool // indexes whose model and texts are being read in the background
	stats   embedsrv.Stats  // guarded by mu

	loading sync.Mutex // held while an index's texts are read (load)
}

// errWarming answers a reading asked for while the reader's model or the
// index's texts are read in the background: that prompt keeps the judge's
// word.
var errWarming = errors.New("the reader is loading: the judge decides this prompt")

// heldTexts are the skill texts of an index file as it was when read, or
// why they could not be read from it.
type heldTexts struct {
	file  os.FileInfo
	err   error
	texts map[string]string
}

// read has the reader read text with the skills ids of the index at path
// (embedsrv.ServerOptions.Read).
func (r *reading) read(path, text string, ids []string) ([]float64, error) {
	texts, err := r.ready(path)
	if err != nil {
		return nil, err
	}
	skills := make([]string, len(ids))
	for i, id := range ids {
		t, ok := texts[id]
		if !ok {
			return nil, fmt.Errorf("index %s has no skill %q", path, id)
		}
		skills[i] = t
	}
	if !r.share.Take() {
		r.mu.Lock()
		r.stats.Declined++
		r.mu.Unlock()
		return nil, reader.ErrPastShare
	}
	start := time.Now()
	beliefs, err := r.model.Score(text, skills)
	if err == nil {
		r.mu.Lock()
		r.stats.Reads++
		r.stats.ReadMicros += time.Since(start).Microseconds()
		r.mu.Unlock()
	}
	return beliefs, err
}

// prompted counts n prompts of hooks with the reader on towards its share
// (embedsrv.ServerOptions.Prompted).
func (r *reading) prompted(n int) {
	for range n {
		r.share.Prompt()
	}
}

// counts are the readings done since the server started.
func (r *reading) counts() embedsrv.Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stats
}

// reread is the server's second look at a query it ranked itself
// (rank.Held.Reread): the reader reads it here, with the texts of the
// index it ranked against.
func (r *reading) reread(params reader.Params) rank.Rereader {
	return func(index string, q rank.Query, text string, cands []record.Candidate) {
		params.Step(cands, text, scorerFunc(func(text string, read []record.Candidate) ([]float64, error) {
			ids := make([]string, len(read))
			for i, c := range read {
				ids[i] = c.ID
			}
			return r.read(index, text, ids)
		}))
	}
}

// scorerFunc is a function as a reader.CandidateScorer.
type scorerFunc func(text string, cands []record.Candidate) ([]float64, error)

func (f scorerFunc) ScoreCandidates(text string, cands []record.Candidate) ([]float64, error) {
	return f(text, cands)
}

// ready returns the skill texts of the index at path once the model is
// loaded and they are read. Until then it has both read in the background
// and returns errWarming: loading the model takes longer than a prompt
// waits for the reader, and an index's texts grow with its catalog.
func (r *reading) ready(path string) (map[string]string, error) {
	st, err := indexFile(path)
	if err != nil {
		return nil, err
	}
	if r.opened.Load() {
		if r.err != nil {
			return nil, r.err
		}
		if texts, ok, err := r.held(path, st); ok {
			return texts, err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.warming[path] {
		if r.warming == nil {
			r.warming = map[string]bool{}
		}
		r.warming[path] = true
		go r.warm(path)
	}
	return nil, errWarming
}

// warm loads the model, if it is not loaded, and reads the texts of the
// index at path.
func (r *reading) warm(path string) {
	if r.open() == nil {
		r.load(path)
	}
	r.mu.Lock()
	delete(r.warming, path)
	r.mu.Unlock()
}

// open loads the model, once.
func (r *reading) open() error {
	r.once.Do(func() {
		r.model, r.err = reader.Open(r.env)
		r.opened.Store(true)
	})
	return r.err
}

// indexFile stats the index at path, which must be a regular file.
func indexFile(path string) (os.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("index %s: not a regular file (%v)", path, st.Mode().Type())
	}
	return st, nil
}

// held returns the texts held for the index at path, or why they could
// not be read, if that was from the file st describes as it is now.
func (r *reading) held(path string, st os.FileInfo) (texts map[string]string, ok bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.texts[path]
	if !ok || !os.SameFile(h.file, st) || h.file.Size() != st.Size() || !h.file.ModTime().Equal(st.ModTime()) {
		return nil, false, nil
	}
	return h.texts, true, h.err
}

// load reads the skill texts of the index at path, unless what is held for
// it is current, and holds them or why they could not be read (readings
// meet that error until the file changes, rather than each reading the
// index again). One index is read at a time, without holding mu (readings
// go on meanwhile).
func (r *reading) load(path string) {
	r.loading.Lock()
	defer r.loading.Unlock()
	st, err := indexFile(path)
	if err != nil {
		return // ready meets it
	}
	if _, ok, _ := r.held(path, st); ok {
		return
	}
	// Reading an index's records is the server's largest passing
	// allocation (tens of MB at 10,000 skills): it starts from a collected
	// heap and gives the pages back after, so the server's peak is what it
	// holds plus one read.
	runtime.GC()
	texts, err := index.ReaderTexts(path)
	debug.FreeOSMemory()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.texts == nil || len(r.texts) >= 4 {
		r.texts = map[string]heldTexts{} // a server answers a few projects
	}
	r.texts[path] = heldTexts{file: st, texts: texts, err: err}
}

// close releases the model, if it was loaded (waiting for a load under
// way; none starts after).
func (r *reading) close() {
	r.once.Do(func() {})
	if r.model != nil {
		r.model.Close()
	}
}

package embedcmd

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/embedsrv"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/rank"
	"github.com/skill-inject/ski/internal/reader"
	"github.com/skill-inject/ski/internal/record"
)

// reading is the reader in the embed server: its model, loaded on the first
// request, the skill texts of the indexes it was asked about, each read
// again when its file changes, and its share of the prompts of hooks with
// the reader on (see prompted).
type reading struct {
	env   embed.Env
	share *reader.Share

	once  sync.Once
	model reader.Model
	err   error

	mu    sync.Mutex
	texts map[string]heldTexts
	stats embedsrv.Stats // guarded by mu
}

// heldTexts are the skill texts of an index file as it was when read.
type heldTexts struct {
	file  os.FileInfo
	texts map[string]string
}

// read has the reader read text with the skills ids of the index at path
// (embedsrv.ServerOptions.Read).
func (r *reading) read(path, text string, ids []string) ([]float64, error) {
	if err := r.open(); err != nil {
		return nil, err
	}
	texts, err := r.textsOf(path)
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

// open loads the model, once.
func (r *reading) open() error {
	r.once.Do(func() { r.model, r.err = reader.Open(r.env) })
	return r.err
}

// textsOf returns the skill texts of the index at path, read again when
// the file at path is another or its size or time changed.
func (r *reading) textsOf(path string) (map[string]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("index %s: not a regular file (%v)", path, st.Mode().Type())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.texts[path]; ok && os.SameFile(h.file, st) && h.file.Size() == st.Size() && h.file.ModTime().Equal(st.ModTime()) {
		return h.texts, nil
	}
	// Reading an index's records is the server's largest passing
	// allocation (tens of MB at 10,000 skills): it starts from a collected
	// heap and gives the pages back after, so the server's peak is what it
	// holds plus one read.
	runtime.GC()
	texts, err := index.ReaderTexts(path)
	debug.FreeOSMemory()
	if err != nil {
		return nil, err
	}
	if r.texts == nil || len(r.texts) >= 4 {
		r.texts = map[string]heldTexts{} // a server answers a few projects
	}
	r.texts[path] = heldTexts{file: st, texts: texts}
	return texts, nil
}

// close releases the model, if it was loaded.
func (r *reading) close() {
	if r.model != nil {
		r.model.Close()
	}
}

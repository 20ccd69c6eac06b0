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
	// Reread, when set, looks again at the candidates of a query whose
	// settings ask for the reader (Settings.Reader).
	Reread Rereader

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
	if err := cat.write(w, path, q, set, h.Reread); err != nil {
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

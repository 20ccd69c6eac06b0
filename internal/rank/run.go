package rank

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/skill-inject/ski/internal/intent"
	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/vecfile"
	"github.com/tidwall/gjson"
)

// Options configure Run.
type Options struct {
	IndexPath string // "" means the query record's "index" field
	// Settings returns the settings of a query of model from the
	// directory cwd; nil means Settings{}: every model's defaults, all
	// candidates.
	Settings func(model, cwd string) Settings
	MaxLine  int
	// Remote, when set, is asked first to rank each query the model of
	// which the record names, unless its settings hold a judge or features
	// (Settings.Local): with the query's model and directory, the index's
	// path, the query record and its settings (JSON of Settings), it
	// returns the candidate lines as Run would write them (Held.Rank), or
	// false to have the query ranked here.
	Remote func(model, cwd, index string, query, settings []byte) ([]byte, bool)
	// RemoteFrom is the size, in bytes, from which an index is ranked by
	// Remote: a smaller one is read here (RemoteFrom).
	RemoteFrom int64
	// Reread, when set, looks again at the candidates of a query ranked
	// here whose settings ask for the reader (Settings.Reader); a Remote
	// ranking has its own.
	Reread Rereader
}

// Rereader has a second look at a query's ranked candidates (package
// reader): given the index's path, the query, its text as ski reads it and
// the candidates, it may change their confidences and order.
type Rereader func(index string, q Query, text string, cands []record.Candidate)

// settings returns the settings of q.
func (o Options) settings(q Query) Settings {
	if o.Settings == nil {
		return Settings{}
	}
	return o.Settings(q.Model, q.Cwd)
}

// RemoteFrom is the size of an index from which ski-rank asks the embed
// server to rank rather than read the index itself: ~4,000 skills. In
// the prompt hook, interleaved with reading it, asking cost +0.5 ms on a
// 0.6 MB index (193 skills) and +0.3 ms on 2.2 MB (1,000); on
// 19.7 MB (10,000) it saved 0.7 ms: the two meet at ~7 MB.
const RemoteFrom = 8 << 20

// Run reads query records and writes candidate records.
func Run(o Options, in io.Reader, out io.Writer) error {
	r := ndjson.NewReader(in, "<stdin>", o.MaxLine)
	w := ndjson.NewWriter(out)
	indexes := map[string]*Catalog{}
	if err := r.Each(func(line []byte) error {
		q, err := parseQuery(line)
		if err != nil {
			return r.Errorf("%w", err)
		}
		path := o.IndexPath
		if path == "" {
			path = q.index
		}
		if path == "" {
			return r.Errorf("query has no \"index\" field and no --index was given")
		}
		set := o.settings(q)
		if lines, ok := o.remote(q, set, path, line); ok {
			return w.WriteLines(lines)
		}
		cat, ok := indexes[path]
		if !ok {
			idx, err := vecfile.ReadRanking(path)
			if err != nil {
				return err
			}
			cat = NewCatalog(idx)
			indexes[path] = cat
		}
		if err := cat.write(w, path, q, set, o.Reread); err != nil {
			return r.Errorf("%w", err)
		}
		return nil
	}); err != nil {
		return err
	}
	return w.Flush()
}

// remote asks o.Remote to rank q, the query record line, against the
// index at path with the settings s, when they can go with it; it returns
// the candidate lines.
func (o Options) remote(q Query, s Settings, path string, line []byte) ([]byte, bool) {
	if o.Remote == nil || q.Model == "" || s.Local() {
		return nil, false
	}
	if st, err := os.Stat(path); err != nil || st.Size() < o.RemoteFrom {
		return nil, false
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, false
	}
	// The other process runs in another directory.
	if path, err = filepath.Abs(path); err != nil {
		return nil, false
	}
	return o.Remote(q.Model, q.Cwd, path, line, b)
}

// write ranks q against the index at path, has reread look at the
// candidates again when s lets it, and writes them to w.
func (c *Catalog) write(w *ndjson.Writer, path string, q Query, s Settings, reread Rereader) error {
	cands, err := c.Rank(q, s)
	if err != nil {
		return err
	}
	if s.Reader && reread != nil {
		reread(path, q, q.Text(), cands)
	}
	for _, cd := range cands {
		if err := w.Encode(cd); err != nil {
			return err
		}
	}
	return nil
}

// Query is what ranking needs of a query record.
type Query struct {
	ID, SessionID, Cwd, Host, Model, Prompt string
	Vector                                  []float32
	// Reading is the prompt's reading, when the record carries it (its
	// "text" and "intent", from ski-embed --query); else Rank reads the
	// prompt itself.
	Reading *prompt.Reading
	index   string
}

// Text is the query's text as ski reads it: the record's, else the
// prompt's reading.
func (q Query) Text() string {
	if q.Reading != nil {
		return q.Reading.Text
	}
	return prompt.Read(q.Prompt).Text
}

func parseQuery(line []byte) (Query, error) {
	get := func(k string) string { return gjson.GetBytes(line, k).Str }
	if k := get("kind"); k != record.KindQuery {
		return Query{}, fmt.Errorf("kind %q, want %q (pipe ski-embed --query into ski-rank)", k, record.KindQuery)
	}
	q := Query{ID: get("query_id"), SessionID: get("session_id"), Cwd: get("cwd"), Host: get("host"),
		Model: get("model"), Prompt: get("prompt"), index: get("index")}
	vec := gjson.GetBytes(line, "vector")
	if !vec.IsArray() {
		return Query{}, errors.New("query has no \"vector\" array")
	}
	if text, kind := gjson.GetBytes(line, "text"), gjson.GetBytes(line, "intent"); text.Exists() || kind.Exists() {
		if text.Type != gjson.String || kind.Type != gjson.String {
			return Query{}, errors.New("query \"text\" and \"intent\" must be strings, and come together")
		}
		switch k := intent.Kind(kind.Str); k {
		case intent.None, intent.BugHunt, intent.SmallEdit:
			q.Reading = &prompt.Reading{Text: text.Str, Intent: k}
		default:
			return Query{}, fmt.Errorf("query intent %q: want %q, %q or \"\"", kind.Str, intent.BugHunt, intent.SmallEdit)
		}
	}
	for _, x := range vec.Array() {
		q.Vector = append(q.Vector, float32(x.Float()))
	}
	return q, nil
}

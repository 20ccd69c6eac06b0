// Package query is the prompt half of ski-embed: it reads host events,
// skips host control messages, finds (or builds) the index for the event's
// project and attaches the prompt's vector.
package query

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/skill-inject/ski/internal/builder"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/vecfile"
)

// Options configure a query run.
type Options struct {
	Host      string
	IndexPath string // explicit index; "" means the automatic one per project
	// Model is the model wanted for automatic indexes. When it cannot be
	// opened (no model files, no runtime), the lexical embedder stands in,
	// with one warning, and the index says so.
	Model    string
	Embed    embed.Env
	CacheDir string // ski's cache folder, for automatic indexes
	Scan     scan.Options
	MaxLine  int
	Warn     func(string)
	Now      func() time.Time
	// Wrap, when set, wraps the embedder of automatic indexes (with an
	// embed server client, say).
	Wrap func(embed.Embedder) embed.Embedder
	// Auto, when set, is the embedder of automatic indexes, used as it is
	// instead of opening Model.
	Auto embed.Embedder
	// Start, when set, starts a background build of the automatic index
	// of a project whose index is not ready (missing, damaged, built by
	// another model) or, with CheckStamp, stale. A prompt never waits for
	// a build.
	Start func(so scan.Options, model string)
	// CheckStamp says to have a builder compare the skill files with the
	// automatic index's stamp after each prompt (Start, which returns at
	// once), for processes with no embed server watching them.
	CheckStamp bool
	// Seen, when set, is told the project of each prompt answered from an
	// automatic index (an embed server client passes it on, for the
	// server to watch the project's skills).
	Seen func(so scan.Options, model string)
	// Written, when set, is called once every record is written and
	// flushed, before the embedders are released. Releasing a loaded model
	// (and starting a server for next time) takes a while; ski-embed closes
	// its output here so the next stage need not wait for it.
	Written func()
}

// Run reads events from in and writes query records to out.
func Run(o Options, in io.Reader, out io.Writer) error {
	r := ndjson.NewReader(in, "<stdin>", o.MaxLine)
	w := ndjson.NewWriter(out)
	q := &querier{o: o, embedders: map[string]embed.Embedder{}, started: map[string]bool{}}
	defer q.close()
	if err := r.Each(func(line []byte) error {
		rec, err := q.one(line)
		if err != nil {
			return r.Errorf("%w", err)
		}
		if rec == nil {
			return nil
		}
		if err := w.WriteRaw(rec); err != nil {
			return err
		}
		return nil
	}); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if o.Written != nil {
		o.Written()
	}
	return nil
}

// PromptEmbedder is an embedder that reads prompts itself (prompt.Read):
// it embeds the query text of each as embed.Queries does and returns the
// readings. An embed server client is one; its server has the patterns
// that read a prompt compiled already.
type PromptEmbedder interface {
	EmbedPrompts(prompts []string) ([][]float32, []prompt.Reading, error)
}

type querier struct {
	o         Options
	embedders map[string]embed.Embedder // by model id
	auto      embed.Embedder            // for automatic indexes
	started   map[string]bool           // indexes whose build was started
}

func (q *querier) close() {
	for _, e := range q.embedders {
		e.Close()
	}
}

// embedder opens the model with the given id, once.
func (q *querier) embedder(model string) (embed.Embedder, error) {
	if e, ok := q.embedders[model]; ok {
		return e, nil
	}
	e, err := embed.Open(model, q.o.Embed)
	if err != nil {
		return nil, err
	}
	q.embedders[model] = e
	return e, nil
}

// autoEmbedder is the wanted model, or the lexical stand-in.
func (q *querier) autoEmbedder() embed.Embedder {
	if q.auto == nil {
		e := q.o.Auto
		if e == nil {
			e = embed.OpenOrLexical(q.o.Model, q.o.Embed, q.o.Warn)
			if q.o.Wrap != nil {
				e = q.o.Wrap(e)
			}
		}
		q.auto = e
		q.embedders[e.Model().ID] = e
	}
	return q.auto
}

// Hint returns the text ski-embed --query will embed for the event line,
// or "" when it embeds none (no prompt, a control message, nothing left of
// the prompt): what an embed server embeds ahead when the hook hands it the
// event early (embedsrv.HintPath).
func Hint(line []byte) string {
	p := gjson.GetBytes(line, "prompt")
	if p.Type != gjson.String || prompt.IsControl(p.Str) {
		return ""
	}
	text := prompt.QueryText(p.Str)
	if strings.TrimSpace(text) == "" {
		return ""
	}
	return text
}

// one turns an event line into a query line, or nil for a control message.
func (q *querier) one(line []byte) ([]byte, error) {
	p := gjson.GetBytes(line, "prompt")
	if p.Type != gjson.String {
		return nil, fmt.Errorf("event has no string field \"prompt\"")
	}
	if prompt.IsControl(p.Str) {
		return nil, nil
	}
	cwd := gjson.GetBytes(line, "cwd").Str
	path, emb, err := q.locate(cwd)
	if err != nil || path == "" {
		return nil, err
	}
	vecs, readings, err := embedPrompt(emb, p.Str)
	if err != nil && q.o.IndexPath == "" && emb.Model().ID != embed.LexicalID {
		// The model did not answer (a busy or stuck embed server, which
		// this process cannot stand in for): rank lexically rather than
		// not at all, and never load the model on the prompt's clock.
		if lex := lexicalIndex(q.project(cwd, embed.LexicalID)); lex != "" {
			q.o.Warn(fmt.Sprintf("embed prompt: %v; ranking it with the lexical index", err))
			path, emb = lex, q.lexical()
			vecs, readings, err = embedPrompt(emb, p.Str)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("embed prompt: %w", err)
	}
	model := emb.Model().ID
	sid := gjson.GetBytes(line, "session_id").Str
	qid := gjson.GetBytes(line, "prompt_id").Str
	if qid == "" {
		sum := sha256.Sum256([]byte(sid + "\x00" + p.Str))
		qid = "q-" + hex.EncodeToString(sum[:6])
	}
	out := line
	for _, kv := range []struct {
		key string
		val any
	}{
		{"kind", record.KindQuery}, {"query_id", qid}, {"host", q.o.Host},
		{"index", path}, {"model", model}, {"text", readings[0].Text},
		{"intent", string(readings[0].Intent)}, {"vector", vecs[0]},
	} {
		if out, err = sjson.SetBytes(out, kv.key, kv.val); err != nil {
			return nil, fmt.Errorf("set %s: %w", kv.key, err)
		}
	}
	return out, nil
}

// locate returns the index for an event from cwd and the embedder of its
// model. It never builds one: when the model's index is not ready it
// starts a background builder (Options.Start) and answers from the
// project's lexical index if there is one, else with "" (no query: ski
// stays silent for this prompt).
func (q *querier) locate(cwd string) (string, embed.Embedder, error) {
	if q.o.IndexPath != "" {
		h, err := vecfile.ReadHeader(q.o.IndexPath)
		if err != nil {
			return "", nil, err
		}
		emb, err := q.embedder(h.Model)
		if err != nil {
			return "", nil, fmt.Errorf("index %s was built with %s: %w", q.o.IndexPath, h.Model, err)
		}
		return q.o.IndexPath, emb, nil
	}
	emb := q.autoEmbedder()
	model := emb.Model().ID
	p := q.project(cwd, model)
	so := p.Scan
	if q.o.Seen != nil {
		q.o.Seen(so, model)
	}
	path := p.IndexPath()
	h, err := vecfile.ReadHeader(path)
	if err == nil && h.Model == model {
		if q.o.CheckStamp {
			// The builder checks (a walk and a stat per skill) at idle
			// priority, off this prompt's clock, and exits when nothing
			// changed.
			q.start(path, so, model)
		}
		return path, emb, nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		q.o.Warn(fmt.Sprintf("%v; it is rebuilt in the background", err))
	}
	q.start(path, so, model)
	if model != embed.LexicalID {
		if lex := lexicalIndex(p); lex != "" {
			return lex, q.lexical(), nil
		}
	}
	q.o.Warn(fmt.Sprintf("no index of %s's skills for %s yet; it is being built in the background", model, so.Cwd))
	return "", nil, nil
}

// embedPrompt embeds a prompt's query text with emb and returns its
// reading (an embedder that reads prompts itself does both).
func embedPrompt(emb embed.Embedder, p string) ([][]float32, []prompt.Reading, error) {
	if pe, ok := emb.(PromptEmbedder); ok {
		return pe.EmbedPrompts([]string{p})
	}
	readings := []prompt.Reading{prompt.Read(p)}
	vecs, err := embed.Queries(emb, []string{readings[0].Text})
	return vecs, readings, err
}

// project is the automatic index by model of the project of cwd (an
// event's; the process's when it has none).
func (q *querier) project(cwd, model string) builder.Project {
	so := q.o.Scan
	if cwd != "" && filepath.IsAbs(cwd) {
		so.Cwd = cwd
	}
	return builder.Project{Scan: so, Model: model, CacheDir: q.o.CacheDir}
}

// lexicalIndex is the lexical index of p's project, or "" when there is
// none.
func lexicalIndex(p builder.Project) string {
	lex := p.LexicalPath()
	if h, err := vecfile.ReadHeader(lex); err != nil || h.Model != embed.LexicalID {
		return ""
	}
	return lex
}

// start starts a background build of the index at path, once per run.
func (q *querier) start(path string, so scan.Options, model string) {
	if q.o.Start == nil || q.started[path] {
		return
	}
	q.started[path] = true
	q.o.Start(so, model)
}

// lexical is the lexical embedder, for lexical indexes.
func (q *querier) lexical() embed.Embedder {
	if e, ok := q.embedders[embed.LexicalID]; ok {
		return e
	}
	e := embed.NewLexical()
	q.embedders[embed.LexicalID] = e
	return e
}

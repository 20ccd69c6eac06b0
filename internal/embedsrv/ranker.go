package embedsrv

import (
	"cmp"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/reader"
	"github.com/skill-inject/ski/internal/record"
)

// RankTimeout bounds connecting and a ranking's round trip: a server
// ranks in a few milliseconds, and reads an index it does not hold yet
// in well under 100 ms even with 10,000 skills.
const RankTimeout = 300 * time.Millisecond

// ReadTimeout is how long ski-rank waits for the reader: past it the
// judge's word stands, and the prompt is not held up.
const ReadTimeout = 150 * time.Millisecond

// Ranker asks the embed server of a query's model to rank the query
// (rank.Options.Remote), when a server of Binary's build runs: it keeps
// the index read between prompts, where a ranking process would read it
// again for each one. It never starts a server, and asks one that failed
// no more.
type Ranker struct {
	// Environ is the command's environment: the run folder, the switch
	// and what keys a model's server.
	Environ environ.Env
	// Runtime is the ONNX Runtime library configured for a directory
	// ("" for the default): part of which server is a model's.
	Runtime func(cwd string) string
	// Binary is the program servers run, whose build they report; ""
	// means ServerBinary where FindBinary finds it, looked up when a
	// server is first asked (most rankings ask none).
	Binary  string
	Timeout time.Duration // 0 means RankTimeout
	// ReadTimeout bounds a reading (Read); 0 means ReadTimeout.
	ReadTimeout time.Duration
	Log         func(string) // one line when a server was there but failed
	clients     map[string]*Client
}

// Rank returns the candidate lines the server of model ranked, or false
// when none did (there is none, SKI_EMBED_SERVER=0, or it failed).
func (r *Ranker) Rank(model, cwd, index string, query, settings []byte) ([]byte, bool) {
	c := r.client(model, cwd)
	if c == nil {
		return nil, false
	}
	ranked, err := c.Rank(index, query, settings)
	if err != nil {
		r.fail(c, err, "ranking in process")
		return nil, false
	}
	return ranked, true
}

// Read returns the beliefs of the reader of the server of model in the
// skills ids of the index, read with text (a prompt as ski reads it), or
// an error when no server did (there is none, SKI_EMBED_SERVER=0, it
// failed before, or took longer than ReadTimeout): the caller then keeps
// the judge's word.
func (r *Ranker) Read(model, cwd, index, text string, ids []string) ([]float64, error) {
	c := r.client(model, cwd)
	if c == nil {
		return nil, errors.New("no embed server")
	}
	timeout := c.Timeout
	c.Timeout = cmp.Or(r.ReadTimeout, ReadTimeout)
	defer func() { c.Timeout = timeout }()
	beliefs, err := c.Read(index, text, ids)
	if errors.Is(err, reader.ErrPastShare) {
		return nil, err // an answer, not a failure: the judge decides
	}
	if err != nil {
		r.fail(c, err, "the judge decides")
		return nil, err
	}
	return beliefs, nil
}

// client returns the client of the server of model for a query from cwd
// (nil when there is none to ask).
func (r *Ranker) client(model, cwd string) *Client {
	if r.Environ.NoServer {
		return nil
	}
	m, err := embed.Lookup(model)
	if err != nil || m.Backend == "lexical" {
		return nil
	}
	run, err := RunDir(r.Environ.RuntimeDir, r.Environ.Dirs.State)
	if err != nil {
		return nil
	}
	runtime := ""
	if r.Runtime != nil {
		runtime = r.Runtime(cwd)
	}
	sock := SocketPath(run, model, embed.Env{Environ: r.Environ, Runtime: runtime})
	c, ok := r.clients[sock]
	if !ok {
		if r.Binary == "" {
			if r.Binary, err = FindBinary(ServerBinary); err != nil {
				return nil
			}
		}
		c = &Client{Local: ModelOnly(m), Socket: sock, Build: BuildOf(r.Binary), Timeout: cmp.Or(r.Timeout, RankTimeout)}
		if r.clients == nil {
			r.clients = map[string]*Client{}
		}
		r.clients[sock] = c
	}
	if c.off {
		return nil
	}
	return c
}

// fail turns the server of c off for this process, and logs err unless
// there was simply no server; then says what happens instead.
func (r *Ranker) fail(c *Client, err error, instead string) {
	c.off = true
	if r.Log != nil && !errors.Is(err, syscall.ENOENT) && !errors.Is(err, syscall.ECONNREFUSED) {
		r.Log(fmt.Sprintf("embed server %s: %v; %s", c.Socket, err, instead))
	}
}

// ModelOnly stands in for an embedder where nothing is embedded (a
// handshake, a ranking): it has m's identity and fails to embed.
func ModelOnly(m embed.Model) embed.Embedder { return modelOnly{m} }

type modelOnly struct{ m embed.Model }

func (e modelOnly) Model() embed.Model { return e.m }
func (e modelOnly) Close() error       { return nil }
func (e modelOnly) Embed([]string, embed.Purpose) ([][]float32, error) {
	return nil, fmt.Errorf("%s is not loaded in this process", e.m.ID)
}

// Reader is the reader of the server of model, for a query from cwd
// ranked against the index at path: it sends the candidates' ids, whose
// texts the server finds in that index (reader.CandidateScorer).
func (r *Ranker) Reader(model, cwd, path string) reader.CandidateScorer {
	return readVia{r, model, cwd, path}
}

type readVia struct {
	r                 *Ranker
	model, cwd, index string
}

func (v readVia) ScoreCandidates(text string, cands []record.Candidate) ([]float64, error) {
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.ID
	}
	return v.r.Read(v.model, v.cwd, v.index, text, ids)
}

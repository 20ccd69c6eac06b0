package embedsrv

import (
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/environ"
)

// RankTimeout bounds connecting and a ranking's round trip: a server
// ranks in a few milliseconds, and reads an index it does not hold yet
// in well under 100 ms even with 10,000 skills.
const RankTimeout = 300 * time.Millisecond

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
	Log     func(string)  // one line when a server was there but failed
	clients map[string]*Client
}

// Rank returns the candidate lines the server of model ranked, or false
// when none did (there is none, SKI_EMBED_SERVER=0, or it failed).
func (r *Ranker) Rank(model, cwd, index string, query, settings []byte) ([]byte, bool) {
	if r.Environ.NoServer {
		return nil, false
	}
	m, err := embed.Lookup(model)
	if err != nil || m.Backend == "lexical" {
		return nil, false
	}
	run, err := RunDir(r.Environ.RuntimeDir, r.Environ.Dirs.State)
	if err != nil {
		return nil, false
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
				return nil, false
			}
		}
		timeout := r.Timeout
		if timeout <= 0 {
			timeout = RankTimeout
		}
		c = &Client{Local: ModelOnly(m), Socket: sock, Build: BuildOf(r.Binary), Timeout: timeout}
		if r.clients == nil {
			r.clients = map[string]*Client{}
		}
		r.clients[sock] = c
	}
	if c.off {
		return nil, false
	}
	ranked, err := c.Rank(index, query, settings)
	if err != nil {
		c.off = true
		if r.Log != nil && !errors.Is(err, syscall.ENOENT) && !errors.Is(err, syscall.ECONNREFUSED) {
			r.Log(fmt.Sprintf("embed server %s: %v; ranking in process", sock, err))
		}
		return nil, false
	}
	return ranked, true
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

package embedcmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/skill-inject/ski/internal/builder"
	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/embedsrv"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/query"
	"github.com/skill-inject/ski/internal/rank"
	"github.com/skill-inject/ski/internal/reader"
	"github.com/skill-inject/ski/internal/spawn"
	"github.com/skill-inject/ski/internal/xdg"
)

// Client timeouts: connecting and a one-prompt round trip (a warm server
// answers in ~5-10 ms, a 512-token prompt in well under 100 ms), and the
// extra allowed per further text of an index build.
const (
	serverTimeout = 300 * time.Millisecond
	serverPerText = 100 * time.Millisecond
	// currentTimeout bounds asking whether an index is current: a server
	// slower than that costs less than the walk it would spare.
	currentTimeout = 50 * time.Millisecond
)

// startDelay is how long a server started by a client on its way out waits
// before loading the model: loading takes both cores for ~150 ms, and the
// prompt that client answered is still going through the stages after it.
const startDelay = 250 * time.Millisecond

// server is how ski-embed finds, starts and runs the embed server of a
// model.
type server struct {
	env     cli.Env
	dirs    xdg.Dirs
	embed   embed.Env
	runtime string // the --onnxruntime flag, passed on to a started server
	reader  bool   // the config has the reader on: prompts count towards its share
	warn    func(string)
}

func (s server) socket(model string) (string, error) {
	dir, err := embedsrv.RunDir(s.env.Environ.RuntimeDir, s.dirs.State)
	if err != nil {
		return "", err
	}
	return embedsrv.SocketPath(dir, model, s.embed), nil
}

// wrap puts an embed server client in front of e, unless e needs no
// loading (lexical) or SKI_EMBED_SERVER=0.
func (s server) wrap(e embed.Embedder) embed.Embedder {
	m := e.Model()
	if m.Backend == "lexical" {
		return e
	}
	c, err := s.client(e, embedsrv.Build())
	if err != nil {
		s.warn(fmt.Sprintf("embed server: %v; embedding in process", err))
	}
	if c == nil {
		return e
	}
	c.Start = func() error { return s.spawn(m.ID, startDelay) }
	return c
}

// remote returns a client of the embed server for m, which this binary
// cannot load, when one of the runtime binary's build answers a
// handshake; else nil (and the caller hands off). Should the server stop
// answering later, its Embed fails rather than loading the model.
//
// A server that is there but does not answer in time (busy, stuck) is
// not a reason to load the model on the prompt's clock: then remote
// returns an embedder that fails at once, and the query is ranked with the
// lexical index.
func (s server) remote(m embed.Model) embed.Embedder {
	exe, err := embedsrv.FindBinary(embedsrv.ServerBinary)
	if err != nil {
		return nil
	}
	c, _ := s.client(unloadable{m}, embedsrv.BuildOf(exe))
	if c == nil {
		return nil
	}
	if err := c.Ping(); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			s.warn(fmt.Sprintf("embed server %s: %v", c.Socket, err))
			return unloadable{m}
		}
		return nil
	}
	return c
}

// client is a client of the embed server for local's model, run by the
// binary of the given build, falling back to local; nil when
// SKI_EMBED_SERVER=0 or the run dir is unusable (err says why).
func (s server) client(local embed.Embedder, build string) (*embedsrv.Client, error) {
	if s.env.Environ.NoServer {
		return nil, nil
	}
	sock, err := s.socket(local.Model().ID)
	if err != nil {
		return nil, err
	}
	return &embedsrv.Client{Local: local, Socket: sock, Build: build, ReadPrompt: prompt.Read, Reader: s.reader,
		Timeout: serverTimeout, PerText: serverPerText, Log: s.warn}, nil
}

// current asks the embed server of p's model, if one of this build runs,
// whether p's index is current as far as its watch knows
// (embedsrv.Client.Current); false when none answers.
func (s server) current(p builder.Project) bool {
	m, err := embed.Lookup(p.Model)
	if err != nil {
		return false
	}
	c, _ := s.client(unloadable{m}, embedsrv.Build())
	if c == nil {
		return false
	}
	c.Timeout = currentTimeout
	spec, err := json.Marshal(p)
	return err == nil && c.Current(spec)
}

// hint hands event to the embed server of model, if one runs, so it starts
// on the prompt before it is asked (embedsrv.SendHint); unless
// SKI_EMBED_SERVER=0.
func (s server) hint(model string, event []byte) {
	if s.env.Environ.NoServer {
		return
	}
	if sock, err := s.socket(model); err == nil {
		embedsrv.SendHint(sock, event)
	}
}

// unloadable stands in for a model this binary has no runtime for, or
// whose server does not answer.
type unloadable struct{ m embed.Model }

func (u unloadable) Model() embed.Model { return u.m }
func (u unloadable) Close() error       { return nil }
func (u unloadable) Embed([]string, embed.Purpose) ([][]float32, error) {
	return nil, fmt.Errorf("the embed server stopped answering, and this binary cannot load %s (%s can)", u.m.ID, embedsrv.ServerBinary)
}

// spawn starts a detached "ski-embed --serve" for model, which waits delay
// before loading it.
func (s server) spawn(model string, delay time.Duration) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find executable: %w", err)
	}
	args := []string{"--serve", "--model", model}
	if delay > 0 {
		args = append(args, "--delay", delay.String())
	}
	if s.runtime != "" {
		args = append(args, "--onnxruntime", s.runtime)
	}
	// The server outlives the hook whose time limit this process may carry.
	return spawn.Detached(s.env.Environ.List(cli.TimeoutEnv), exe, args...)
}

// serve runs the server for model (or, with detach, starts it in the
// background and returns: none with SKI_EMBED_SERVER=0, as the session
// hook asks on every start). A model with nothing to load is not served;
// another server already running is not an error.
func (s server) serve(model string, idle, delay time.Duration, detach bool, watch *builder.Watcher) error {
	if detach && s.env.Environ.NoServer {
		return nil
	}
	e := embed.OpenOrLexical(model, s.embed, s.warn)
	defer e.Close()
	if e.Model().Backend == "lexical" {
		s.warn(fmt.Sprintf("model %s needs no server", e.Model().ID))
		return nil
	}
	if detach {
		return s.spawn(model, delay)
	}
	// One P, whatever the server inherits: the model runs in a C call,
	// and with a second P idle beside it the Go runtime's monitor thread
	// wakes every 20-40 µs for as long as the call lasts (~1 ms of CPU per
	// prompt here, taken from the stages starting on the other core). With
	// one P the monitor hands the P on and sleeps, and a handshake that
	// comes meanwhile runs on it at once (interleaved warm runs, one P
	// against two: -0.9, -1.4 and -0.2 ms).
	runtime.GOMAXPROCS(1)
	sock, err := s.socket(model)
	if err != nil {
		return err
	}
	// The server ranks for ski-rank against indexes it keeps read; the
	// watcher has it read one as soon as a builder wrote it.
	held := &rank.Held{}
	watch.Indexed = held.Prepare
	// The reader reads the prompts the judge is unsure of: for ski-rank,
	// and of the queries the server ranks itself.
	// It reads at most its share of the prompts of hooks with it on.
	params := reader.Default()
	rd := &reading{env: s.embed, share: reader.NewShare(params.MaxShare)}
	defer rd.close()
	held.Reread = rd.reread(params)
	err = embedsrv.Serve(embedsrv.ServerOptions{Socket: sock, Idle: idle, Delay: delay, Build: embedsrv.Build(), CacheSize: 256, Hint: query.Hint, ReadPrompt: prompt.Read, Prompted: rd.prompted,
		Rank: held.Rank, Read: rd.read, Stats: rd.counts, Watch: watch, Open: func() (embed.Embedder, error) { return embed.Open(model, s.embed) }})
	if errors.Is(err, embedsrv.ErrRunning) {
		return nil
	}
	return err
}

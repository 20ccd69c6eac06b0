// Package embedcmd is the ski-embed command. It is built into two
// binaries: ski-embed, a static, pure-Go front that answers prompt queries
// through a running embed server (starting in ~2 ms rather than the ~4.5 ms
// of a binary linking the model runtime), and ski-embed-onnx, which links
// the model runtime and does everything else. The front hands whatever it
// cannot do to ski-embed-onnx by exec, before it has read any input, so
// both behave as one command.
package embedcmd

import (
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/skill-inject/ski/internal/builder"
	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/embedsrv"
	"github.com/skill-inject/ski/internal/event"
	"github.com/skill-inject/ski/internal/query"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/settings"
)

// Program is ski-embed as one binary builds it.
type Program struct {
	// Manual is the --help text (cmd/ski-embed's doc.go).
	Manual string
	// Fetch downloads a model's files (--fetch); nil when HandOff does it.
	Fetch func(env cli.Env, id string) error
	// HandOff, when set, replaces this process with the binary that links
	// the model runtime, given the same arguments; it returns only on
	// failure. It is called before any input is read, for every run that
	// needs a model this binary has not built in, or Fetch.
	HandOff func() error
}

// The modes of ski-embed: exactly one per run.
const (
	modeIndex   = "index"   // --index FILE without --query: build an index from scan records
	modeQuery   = "query"   // --query
	modeRefresh = "refresh" // --refresh
	modeServe   = "serve"   // --serve
	modeBuilder = "builder" // --builder SPEC
	modeGC      = "gc"      // --gc
	modeFetch   = "fetch"   // --fetch [MODEL]
)

// Options are ski-embed's flags, validated.
type Options struct {
	Mode       string
	Index      string // --index
	Background bool   // --refresh --background
	Builder    string // --builder's project spec
	Detach     bool   // --serve --detach
	Idle       time.Duration
	Delay      time.Duration
	Recheck    time.Duration // --serve: a watched project's full check
	Host       string
	Model      string // "" means the config's, else the default
	Runtime    string // --onnxruntime
	MaxLine    int
	Event      bool   // --query --event
	FetchID    string // --fetch's model
}

// parse reads ski-embed's flags into Options.
func parse(env cli.Env, manual string) (Options, error) {
	var o Options
	fs := cli.NewFlags("ski-embed", manual, env)
	fs.StringVar(&o.Index, "index", "", "the vector index `file` to write (with scan records) or read (with --query)")
	queryMode := fs.Bool("query", false, "read prompt events and attach query vectors")
	refresh := fs.Bool("refresh", false, "bring the automatic index of each event's project up to date")
	fs.BoolVar(&o.Background, "background", false, "with --refresh: start a background build of each event's index when it is missing, stale or damaged, and return at once (what the hooks do)")
	fs.StringVar(&o.Builder, "builder", "", "run as the background builder of a project `spec` (ski starts these itself)")
	gcMode := fs.Bool("gc", false, "drop from the embedding cache the vectors that no index uses")
	serveMode := fs.Bool("serve", false, "keep the model loaded and embed for other ski-embed processes over a unix socket until idle")
	fs.BoolVar(&o.Detach, "detach", false, "with --serve: start the server in the background and return at once")
	fs.DurationVar(&o.Idle, "idle", 30*time.Minute, "with --serve: exit after this long without a request")
	fs.DurationVar(&o.Delay, "delay", 0, "with --serve: wait this long before loading the model")
	fs.DurationVar(&o.Recheck, "recheck", 5*time.Minute, "with --serve: check the index of each watched project in full this often, changed or not")
	fetchMode := fs.Bool("fetch", false, "download a model's files from Hugging Face (HF_ENDPOINT, HF_TOKEN) into $XDG_DATA_HOME/ski/models; the model is the argument or --model")
	fs.StringVar(&o.Host, "host", record.HostClaude, "host whose skill roots are used: claude or opencode")
	fs.StringVar(&o.Model, "model", "", "model `id` for a new index (default from config, else "+embed.DefaultModel()+")")
	fs.StringVar(&o.Runtime, "onnxruntime", "", "ONNX Runtime shared library `file` (default: config onnxruntime, $ONNXRUNTIME_SHARED_LIBRARY_PATH, beside the executable, $XDG_DATA_HOME/ski/runtime, the system loader path)")
	fs.IntVar(&o.MaxLine, "max-line", 512<<10, "longest input line in `bytes` (a longer prompt is refused)")
	fs.BoolVar(&o.Event, "event", false, "with --query: the input is one host event, any JSON object (pretty-printed or not, up to 16 MiB); a prompt longer than 64 KiB is ranked on its first 64 KiB")
	if err := cli.Parse(fs, env); err != nil {
		return o, err
	}
	if *fetchMode {
		if fs.NArg() > 1 {
			return o, cli.Usagef("--fetch takes one model id, got %d", fs.NArg())
		}
		o.Mode, o.FetchID = modeFetch, fs.Arg(0)
		if o.FetchID == "" {
			o.FetchID = o.Model
		}
		return o, nil
	}
	if fs.NArg() > 0 {
		return o, cli.Usagef("unexpected argument %q", fs.Arg(0))
	}
	if o.Host != record.HostClaude && o.Host != record.HostOpencode {
		return o, cli.Usagef("--host %q: want claude or opencode", o.Host)
	}
	for mode, on := range map[string]bool{modeQuery: *queryMode, modeRefresh: *refresh, modeServe: *serveMode,
		modeIndex: o.Index != "" && !*queryMode, modeBuilder: o.Builder != "", modeGC: *gcMode} {
		if on && o.Mode != "" {
			o.Mode = "several"
		} else if on {
			o.Mode = mode
		}
	}
	switch {
	case o.Mode == "" || o.Mode == "several":
		return o, cli.Usagef("give exactly one of --index FILE, --query, --refresh, --serve, --gc or --fetch")
	case o.Background && o.Mode != modeRefresh:
		return o, cli.Usagef("--background goes with --refresh")
	case (o.Detach || o.Delay != 0 || o.Recheck != 5*time.Minute) && o.Mode != modeServe:
		return o, cli.Usagef("--detach, --delay and --recheck go with --serve")
	case o.Recheck <= 0:
		return o, cli.Usagef("--recheck %v: want a positive duration", o.Recheck)
	case o.Event && o.Mode != modeQuery:
		return o, cli.Usagef("--event goes with --query")
	}
	return o, nil
}

// Run runs ski-embed with env.
func (p Program) Run(env cli.Env) error {
	o, err := parse(env, p.Manual)
	if err != nil {
		return err
	}
	if o.Mode == modeFetch {
		if p.Fetch == nil {
			return p.handOff()
		}
		return p.Fetch(env, o.FetchID)
	}
	r, err := p.prepare(env, o)
	if err != nil {
		return err
	}
	if p.HandOff != nil && !embed.BuiltIn(r.model.Backend) {
		return p.front(env, o, r)
	}
	r.keep()
	switch o.Mode {
	case modeServe:
		return r.srv.serve(r.model.ID, o.Idle, o.Delay, o.Detach, &builder.Watcher{Start: r.builds.start, Recheck: o.Recheck})
	case modeQuery:
		// No server answered: the model loads in this process, and with
		// no server watching the skills, each prompt has a builder look at them.
		r.query.CheckStamp = true
		return query.Run(r.query, r.stdin(env), env.Stdout)
	case modeBuilder:
		return r.builds.runBuilder(o.Builder)
	case modeGC:
		return r.builds.gc()
	case modeRefresh:
		if o.Background {
			return r.builds.refreshBackground(r.scan)
		}
		return r.builds.refreshByHand(r.scan)
	}
	return r.builds.buildIndex(o.Index)
}

// run is what a run of ski-embed works with, once the flags are read.
type run struct {
	model  embed.Model
	scan   scan.Options
	srv    server
	builds builds
	query  query.Options
	event  []byte // the event read with --event
	keep   func() // says the warnings held back for a hand-off
}

// stdin is the run's input: the event read with --event, else standard
// input.
func (r *run) stdin(env cli.Env) io.Reader {
	if r.event != nil {
		return bytes.NewReader(append(r.event, '\n'))
	}
	return env.Stdin
}

// prepare works out the model, the scan, the embedding environment and the
// parts of the run; it reads the event of --event.
func (p Program) prepare(env cli.Env, o Options) (*run, error) {
	dirs := env.Environ.Dirs
	// Warnings wait until this process knows it will not hand the run off:
	// the other binary would give them again.
	holding, held, say := p.HandOff != nil, []string(nil), cli.Warner("ski-embed", env.Stderr)
	warn := func(msg string) {
		if holding {
			held = append(held, msg)
			return
		}
		say(msg)
	}
	r := &run{keep: func() {
		holding = false
		for _, msg := range held {
			warn(msg)
		}
		held = nil
	}}
	cwd, _ := os.Getwd()
	res := &settings.Resolver{Env: env.Environ, Warn: warn}
	if o.Model == "" {
		o.Model = res.Model(cwd)
	}
	var err error
	if r.model, err = embed.Lookup(o.Model); err != nil {
		return nil, cli.Usagef("--model: %v", err)
	}
	r.scan = scan.ForDir(env.Environ, res.Config(cwd), o.Host, cwd, warn)
	eenv := embed.Env{Environ: env.Environ, Runtime: o.Runtime, OneQuery: o.Mode == modeQuery}
	if eenv.Runtime == "" {
		eenv.Runtime = res.Config(cwd).OnnxRuntime
	}
	ranking, _ := res.Rank(o.Model, cwd) // the model is known: no error
	r.srv = server{env: env, dirs: dirs, embed: eenv, runtime: o.Runtime, reader: ranking.Reader, warn: warn}
	r.builds = builds{env: env, dirs: dirs, embed: eenv, runtime: o.Runtime, model: o.Model, maxLine: o.MaxLine, warn: warn,
		current: r.srv.current}
	r.query = query.Options{Host: o.Host, IndexPath: o.Index, Model: o.Model, Embed: eenv, CacheDir: dirs.Cache,
		Scan: r.scan, MaxLine: o.MaxLine, Warn: warn, Now: time.Now, Wrap: r.srv.wrap, Start: r.builds.startFor,
		Written: func() { closeOutput(env) }}
	if o.Event {
		if r.event, err = readEvent(env); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// front is the run of the pure-Go ski-embed for a model it has no runtime
// for: only a query on the automatic index can be answered here, and only
// through a server that is up; everything else is handed off.
func (p Program) front(env cli.Env, o Options, r *run) error {
	if o.Mode != modeQuery || o.Index != "" {
		return p.handOffWith(r.event)
	}
	// The server starts on the prompt while this process finds the index
	// and asks.
	if r.event != nil {
		r.srv.hint(r.model.ID, r.event)
	}
	remote := r.srv.remote(r.model)
	if remote == nil {
		return p.handOffWith(r.event)
	}
	r.query.Auto = remote
	if c, ok := remote.(*embedsrv.Client); ok {
		r.query.Seen = func(so scan.Options, model string) { c.Project = r.builds.spec(so, model) }
	}
	r.keep()
	return query.Run(r.query, r.stdin(env), env.Stdout)
}

// handOff hands the run to the binary that links the model runtime.
func (p Program) handOff() error {
	if p.HandOff == nil {
		return fmt.Errorf("this ski-embed cannot hand off to the model runtime")
	}
	return p.HandOff()
}

// readEvent reads the one host event on standard input (event.Read), as
// one line of JSON. A prompt cut to
// its first part is said on stderr at once: the binary this run may be
// handed to reads the cut event and cannot tell.
func readEvent(env cli.Env) ([]byte, error) {
	line, cut, err := event.Read(env.Stdin, event.MaxBytes, event.MaxPrompt)
	if err != nil {
		return nil, fmt.Errorf("<stdin>: %w", err)
	}
	if cut != nil {
		fmt.Fprintf(env.Stderr, "ski-embed: warning: the prompt has %d bytes; ranking its first %d\n", cut.Was, cut.Kept)
	}
	return line, nil
}

// handOffWith hands the run off; event, when it was read from standard
// input already, becomes the other binary's standard input.
func (p Program) handOffWith(event []byte) error {
	if event != nil {
		if err := refillStdin(append(event, '\n')); err != nil {
			return fmt.Errorf("hand the event on: %w", err)
		}
	}
	return p.handOff()
}

// closeOutput closes standard output when it is a file, so the next stage
// of a pipeline reads the end of its input now rather than when this
// process has released its model and exited.
func closeOutput(env cli.Env) {
	if f, ok := env.Stdout.(*os.File); ok {
		f.Close()
	}
}

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

// Run runs ski-embed with env.
func (p Program) Run(env cli.Env) error {
	fs := cli.NewFlags("ski-embed", p.Manual, env)
	indexPath := fs.String("index", "", "the vector index `file` to write (with scan records) or read (with --query)")
	queryMode := fs.Bool("query", false, "read prompt events and attach query vectors")
	refresh := fs.Bool("refresh", false, "bring the automatic index of each event's project up to date")
	background := fs.Bool("background", false, "with --refresh: start a background build of each event's index when it is missing, stale or damaged, and return at once (what the hooks do)")
	builderSpec := fs.String("builder", "", "run as the background builder of a project `spec` (ski starts these itself)")
	gcMode := fs.Bool("gc", false, "drop from the embedding cache the vectors that no index uses")
	serveMode := fs.Bool("serve", false, "keep the model loaded and embed for other ski-embed processes over a unix socket until idle")
	detach := fs.Bool("detach", false, "with --serve: start the server in the background and return at once")
	idle := fs.Duration("idle", 30*time.Minute, "with --serve: exit after this long without a request")
	delay := fs.Duration("delay", 0, "with --serve: wait this long before loading the model")
	fetchMode := fs.Bool("fetch", false, "download a model's files from Hugging Face (HF_ENDPOINT, HF_TOKEN) into $XDG_DATA_HOME/ski/models; the model is the argument or --model")
	host := fs.String("host", record.HostClaude, "host whose skill roots are used: claude or opencode")
	model := fs.String("model", "", "model `id` for a new index (default from config, else "+embed.DefaultModel()+")")
	runtime := fs.String("onnxruntime", "", "ONNX Runtime shared library `file` (default: config onnxruntime, $ONNXRUNTIME_SHARED_LIBRARY_PATH, beside the executable, $XDG_DATA_HOME/ski/runtime, the system loader path)")
	maxLine := fs.Int("max-line", 512<<10, "longest input line in `bytes` (a longer prompt is refused)")
	oneEvent := fs.Bool("event", false, "with --query: the input is one host event, any JSON object (pretty-printed or not, up to 16 MiB); a prompt longer than 64 KiB is ranked on its first 64 KiB")
	if err := cli.Parse(fs, env); err != nil {
		return err
	}
	if *fetchMode {
		if fs.NArg() > 1 {
			return cli.Usagef("--fetch takes one model id, got %d", fs.NArg())
		}
		if p.Fetch == nil {
			return p.handOff()
		}
		id := fs.Arg(0)
		if id == "" {
			id = *model
		}
		return p.Fetch(env, id)
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected argument %q", fs.Arg(0))
	}
	if *host != record.HostClaude && *host != record.HostOpencode {
		return cli.Usagef("--host %q: want claude or opencode", *host)
	}
	modes := 0
	for _, on := range []bool{*queryMode, *refresh, *serveMode, *indexPath != "" && !*queryMode, *builderSpec != "", *gcMode} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return cli.Usagef("give exactly one of --index FILE, --query, --refresh, --serve, --gc or --fetch")
	}
	if *background && !*refresh {
		return cli.Usagef("--background goes with --refresh")
	}
	if (*detach || *delay != 0) && !*serveMode {
		return cli.Usagef("--detach and --delay go with --serve")
	}
	if *oneEvent && !*queryMode {
		return cli.Usagef("--event goes with --query")
	}
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
	keep := func() {
		holding = false
		for _, msg := range held {
			warn(msg)
		}
		held = nil
	}
	cwd, _ := os.Getwd()
	res := &settings.Resolver{Env: env.Environ, Warn: warn}
	if *model == "" {
		*model = res.Model(cwd)
	}
	m, err := embed.Lookup(*model)
	if err != nil {
		return cli.Usagef("--model: %v", err)
	}
	so := res.Scan(*host, cwd)
	eenv := embed.Env{Environ: env.Environ, Runtime: *runtime, OneQuery: *queryMode}
	if eenv.Runtime == "" {
		eenv.Runtime = res.Config(cwd).OnnxRuntime
	}
	srv := server{env: env, dirs: dirs, embed: eenv, runtime: *runtime, warn: warn}
	b := builds{env: env, dirs: dirs, embed: eenv, runtime: *runtime, model: *model, maxLine: *maxLine, warn: warn,
		current: srv.current}
	qo := query.Options{Host: *host, IndexPath: *indexPath, Model: *model, Embed: eenv, CacheDir: dirs.Cache,
		Scan: so, MaxLine: *maxLine, Warn: warn, Now: time.Now, Wrap: srv.wrap, Start: b.startFor,
		Written: func() { closeOutput(env) }}
	var event []byte
	if *oneEvent {
		if event, err = readEvent(env); err != nil {
			return err
		}
		env.Stdin = bytes.NewReader(append(event, '\n'))
	}
	if p.HandOff != nil && !embed.BuiltIn(m.Backend) {
		// Only a query on the automatic index can be answered here, and
		// only through a server that is up.
		if !*queryMode || *indexPath != "" {
			return p.handOffWith(event)
		}
		// The server starts on the prompt while this process finds the
		// index and asks.
		if event != nil {
			srv.hint(m.ID, event)
		}
		remote := srv.remote(m)
		if remote == nil {
			return p.handOffWith(event)
		}
		qo.Auto = remote
		if c, ok := remote.(*embedsrv.Client); ok {
			qo.Seen = func(so scan.Options, model string) { c.Project = b.spec(so, model) }
		}
		keep()
		return query.Run(qo, env.Stdin, env.Stdout)
	}
	keep()
	switch {
	case *serveMode:
		return srv.serve(*model, *idle, *delay, *detach, &builder.Watcher{Start: b.start})
	case *queryMode:
		// No server answered: the model loads in this process, and with
		// no server watching the skills, each prompt has a builder look at them.
		qo.CheckStamp = true
		return query.Run(qo, env.Stdin, env.Stdout)
	case *builderSpec != "":
		return b.runBuilder(*builderSpec)
	case *gcMode:
		return b.gc()
	case *refresh && *background:
		return b.refreshBackground(so)
	case *refresh:
		return b.refreshByHand(so)
	}
	return b.buildIndex(*indexPath)
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

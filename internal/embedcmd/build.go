package embedcmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/skill-inject/ski/internal/background"
	"github.com/skill-inject/ski/internal/builder"
	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/embcache"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/embedsrv"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/indexfile"
	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/quant"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/xdg"
)

// buildThreads is how many threads a build's model runs use: both cores
// of a small machine, at idle priority for a background build, so a
// prompt's hook still gets the CPU first.
const buildThreads = 2

// builds is how ski-embed builds indexes: by hand (--index, --refresh),
// in a background builder (--builder), and how hooks start one.
type builds struct {
	env     cli.Env
	dirs    xdg.Dirs
	embed   embed.Env
	runtime string // the --onnxruntime flag, passed on to a builder
	model   string // the wanted model
	maxLine int
	warn    func(string)
	// current, when set, asks the embed server whether a project's index
	// is current, sparing the walk (server.current).
	current func(builder.Project) bool
}

// indexLine is the summary record --index and --refresh print.
type indexLine struct {
	Kind     string `json:"kind"`
	Path     string `json:"path"`
	Model    string `json:"model"`
	State    string `json:"state,omitempty"` // --refresh --background: current, or building
	Count    int    `json:"count"`
	Embedded int    `json:"embedded"`
	Cached   int    `json:"cached"`
	Reused   int    `json:"reused"`
	Removed  int    `json:"removed"`
	Errors   int    `json:"errors"`
}

// project is the automatic index of so with model.
func (b builds) project(so scan.Options, model string) builder.Project {
	return builder.Project{Scan: so, Model: model, CacheDir: b.dirs.Cache}
}

// effectiveModel is the model indexes are built with: the wanted one, or
// the lexical one when it is not installed (which OpenOrLexical says
// without loading anything).
func (b builds) effectiveModel() string {
	return embed.OpenOrLexical(b.model, b.embed, b.warn).Model().ID
}

// eachEvent calls fn with the scan options of each event's project (its
// "cwd" over so's).
func (b builds) eachEvent(so scan.Options, fn func(scan.Options) (indexLine, error)) error {
	r := ndjson.NewReader(b.env.Stdin, "<stdin>", b.maxLine)
	w := ndjson.NewWriter(b.env.Stdout)
	if err := r.Each(func(line []byte) error {
		o := so
		if cwd := gjson.GetBytes(line, "cwd").Str; filepath.IsAbs(cwd) {
			o.Cwd = cwd
		}
		out, err := fn(o)
		if err != nil {
			return r.Errorf("%w", err)
		}
		return w.Encode(out)
	}); err != nil {
		return err
	}
	return w.Flush()
}

// refreshBackground checks each event's index and starts a builder for
// it when it is not current; it never waits for one.
func (b builds) refreshBackground(so scan.Options) error {
	model := b.effectiveModel()
	return b.eachEvent(so, func(o scan.Options) (indexLine, error) {
		p := b.project(o, model)
		line := indexLine{Kind: "index", Path: p.IndexPath(), Model: p.Model, State: "current"}
		if b.current != nil && b.current(p) {
			return line, nil
		}
		if builder.Check(line.Path, p.Model, o, true, b.warn) != builder.Current {
			line.State = "building"
			b.start(p)
		}
		return line, nil
	})
}

// startFor starts a background builder of the automatic index of so by
// model, unless one runs.
func (b builds) startFor(so scan.Options, model string) { b.start(b.project(so, model)) }

// spec describes the automatic index of so by model, for an embed server
// to watch.
func (b builds) spec(so scan.Options, model string) []byte {
	spec, _ := json.Marshal(b.project(so, model))
	return spec
}

// start starts a background builder of p unless one runs, and reports
// whether it started one (a failure to start is only logged: the caller
// answers from what is there).
func (b builds) start(p builder.Project) bool {
	cmd, err := b.builderCommand(p)
	started := false
	if err == nil {
		started, err = builder.Start(p, cmd)
		if cmd.Log != nil {
			cmd.Log.Close()
		}
	}
	if err != nil {
		b.warn(fmt.Sprintf("background index build: %v", err))
	}
	return started
}

// builderCommand runs "ski-embed-onnx --builder SPEC" (or this binary when
// it is that one, or when none is installed: then the build is lexical),
// without the hook's time limit, its messages going to the hook log.
func (b builds) builderCommand(p builder.Project) (builder.Command, error) {
	spec, err := json.Marshal(p)
	if err != nil {
		return builder.Command{}, fmt.Errorf("builder spec: %w", err)
	}
	exe, err := embedsrv.FindBinary(embedsrv.ServerBinary)
	if err != nil {
		if exe, err = os.Executable(); err != nil {
			return builder.Command{}, fmt.Errorf("find executable: %w", err)
		}
	}
	args := []string{"--builder", string(spec)}
	if b.runtime != "" {
		args = append(args, "--onnxruntime", b.runtime)
	}
	return builder.Command{Exe: exe, Args: args, Env: b.env.Environ.List(cli.TimeoutEnv), Log: builder.OpenLog(b.dirs.State)}, nil
}

// runBuilder is a background builder: it holds the build lock it was
// handed (or takes it), yields the CPU to everything else, and builds.
func (b builds) runBuilder(spec string) error {
	var p builder.Project
	if err := json.Unmarshal([]byte(spec), &p); err != nil {
		return cli.Usagef("--builder: %v", err)
	}
	lock, err := builder.LockFromFD()
	if err != nil {
		var ok bool
		if lock, ok, err = builder.Lock(p, false); err != nil || !ok {
			return err // another builder runs
		}
	}
	defer lock.Close()
	builder.YieldCPU()
	start := time.Now()
	res, err := b.build(p, nil, func() {
		fmt.Fprintf(b.env.Stderr, "ski-embed: background builder %d started for %s\n", os.Getpid(), p.IndexPath())
	})
	if err != nil {
		return fmt.Errorf("background build of %s: %w", p.IndexPath(), err)
	}
	if res.Built {
		fmt.Fprintf(b.env.Stderr, "ski-embed: built %s in the background in %.1fs: %d skills (%s)\n",
			res.Path, time.Since(start).Seconds(), res.Count, res.Stats)
	}
	return nil
}

// build runs a build of p in this process with the model opened for
// builds; progress, when set, hears of each batch, and building of the
// index's not being current.
func (b builds) build(p builder.Project, progress func(done, total int), building func()) (builder.Result, error) {
	env := b.embed
	env.Threads = buildThreads
	emb := embed.OpenOrLexical(p.Model, env, b.warn)
	defer emb.Close()
	p.Model = emb.Model().ID // the lexical model when the wanted one is not installed
	return builder.Run(p, builder.Options{
		Embedder: emb,
		Progress: progress, Building: building, Warn: b.warn,
	})
}

// refreshByHand brings each event's index up to date before it returns,
// waiting for a background builder of the same index to finish first,
// with progress on a terminal.
func (b builds) refreshByHand(so scan.Options) error {
	model := b.effectiveModel()
	return b.eachEvent(so, func(o scan.Options) (indexLine, error) {
		p := b.project(o, model)
		lock, ok, err := builder.Lock(p, false)
		if err != nil {
			return indexLine{}, err
		}
		if !ok {
			fmt.Fprintf(b.env.Stderr, "ski-embed: waiting for the background build of %s\n", p.IndexPath())
			if lock, _, err = builder.Lock(p, true); err != nil {
				return indexLine{}, err
			}
		}
		defer lock.Close()
		pr := newProgress(b.env.Stderr, "embedding skills")
		res, err := b.build(p, pr.show, nil)
		pr.end()
		if err != nil {
			return indexLine{}, err
		}
		return indexLine{Kind: "index", Path: res.Path, Model: model, Count: res.Count,
			Embedded: res.Stats.Embedded, Cached: res.Stats.Cached, Reused: res.Stats.Reused, Removed: res.Stats.Removed}, nil
	})
}

// buildIndex builds the index at path from ski-scan records on stdin,
// through the embedding cache, with progress on a terminal.
func (b builds) buildIndex(path string) error {
	r := ndjson.NewReader(b.env.Stdin, "<stdin>", b.maxLine)
	var skills []record.Skill
	errs := 0
	if err := r.Each(func(line []byte) error {
		switch k := gjson.GetBytes(line, "kind").Str; k {
		case record.KindError:
			errs++
			return nil
		case record.KindWarning:
			return nil // a usable skill's problem with a host; its skill record came first
		case record.KindSkill:
		default:
			return r.Errorf("kind %q, want %q (pipe ski-scan into ski-embed --index)", k, record.KindSkill)
		}
		var s record.Skill
		if err := json.Unmarshal(line, &s); err != nil {
			return r.Errorf("decode skill: %w", err)
		}
		if s.ID == "" || s.Hash == "" {
			return r.Errorf("skill record needs id and hash")
		}
		skills = append(skills, s)
		return nil
	}); err != nil {
		return err
	}
	env := b.embed
	env.Threads = buildThreads
	emb := embed.OpenOrLexical(b.model, env, b.warn)
	defer emb.Close()
	model := emb.Model().ID
	old := index.ReadOld(path, b.warn)
	if old != nil && old.Header.Model != model {
		b.warn(fmt.Sprintf("index was built with %s; rebuilding it with %s", old.Header.Model, model))
	}
	cache, err := embcache.Open(b.dirs.Cache, model, emb.Model().Dim, b.warn)
	if err != nil {
		return err
	}
	pr := newProgress(b.env.Stderr, "embedding skills")
	idx, stats, err := index.BuildWith(skills, old, emb, time.Now(), index.Options{Cache: cache, Progress: pr.show})
	pr.end()
	if err != nil {
		return err
	}
	if err := background.Attach(idx, emb, cache, false); err != nil {
		return err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if err := indexfile.Write(path, idx); err != nil {
		return err
	}
	fmt.Fprintf(b.env.Stderr, "ski-embed: %s: %d skills (%s) with %s\n", path, len(skills), stats, model)
	w := ndjson.NewWriter(b.env.Stdout)
	if err := w.Encode(indexLine{Kind: "index", Path: path, Model: model, Count: len(skills),
		Embedded: stats.Embedded, Cached: stats.Cached, Reused: stats.Reused, Removed: stats.Removed, Errors: errs}); err != nil {
		return err
	}
	return w.Flush()
}

// gc drops from every model's embedding cache the vectors that no index
// under ski's cache folder holds (an index keeps each vector as half
// floats, so a cached vector is matched by its half-float form), but for
// those of the judge's generic prompts, which every build ranks.
func (b builds) gc() error {
	used := map[string]map[string]bool{} // model -> half-float vectors
	paths, _ := filepath.Glob(filepath.Join(b.dirs.Cache, "index", "*.skv"))
	for _, path := range paths {
		idx, err := indexfile.Read(path)
		if err != nil {
			b.warn(fmt.Sprintf("gc: %v (skipped)", err))
			continue
		}
		vecs := used[idx.Header.Model]
		if vecs == nil {
			vecs = map[string]bool{}
			used[idx.Header.Model] = vecs
		}
		for _, e := range idx.Entries {
			vecs[string(quant.Half(e.Vector))] = true
		}
	}
	generic := background.Keys()
	files, _ := filepath.Glob(filepath.Join(embcache.Dir(b.dirs.Cache), "*.vec"))
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".vec")
		m, err := embed.Lookup(id)
		if err != nil {
			continue
		}
		c, err := embcache.Open(b.dirs.Cache, id, m.Dim, b.warn)
		if err != nil {
			return err
		}
		dropped, err := c.Keep(func(k embcache.Key, v []float32) bool { return generic[k] || used[id][string(quant.Half(v))] })
		if err != nil {
			return err
		}
		fmt.Fprintf(b.env.Stderr, "ski-embed: %s: kept %d vectors, dropped %d\n", f, c.Len(), dropped)
	}
	return nil
}

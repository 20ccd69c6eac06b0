package main

import (
	_ "embed"
	"os"
	"runtime/debug"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/embedsrv"
	"github.com/skill-inject/ski/internal/mention"
	"github.com/skill-inject/ski/internal/rank"
	"github.com/skill-inject/ski/internal/reader"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/settings"
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

func main() { os.Exit(cli.Main("ski-rank", cli.OSEnv(), run)) }

func run(env cli.Env) error {
	fs := cli.NewFlags("ski-rank", cli.Manual(docSource), env)
	indexPath := fs.String("index", "", "vector index `file` (default: each query's \"index\" field)")
	top := fs.Int("top", 10, "candidates per query, `n`; 0 means all")
	boost := fs.Float64("keyword-boost", -1, "score added per keyword hit (default: the model's calibrated value)")
	lexical := fs.Float64("lexical-weight", -1, "weight of the BM25 score (default: the model's calibrated value)")
	bodyWeight := fs.Float64("body-weight", -1, "weight of the BM25 score against whole skill bodies (default: the model's calibrated value)")
	maxLine := fs.Int("max-line", 1<<20, "longest input line in `bytes`")
	if err := cli.ParseNoArgs(fs, env); err != nil {
		return err
	}
	if *top < 0 {
		return cli.Usagef("--top %d: must not be negative", *top)
	}
	warn := cli.Warner("ski-rank", env.Stderr)
	res := &settings.Resolver{Env: env.Environ, Warn: warn}
	flags := rank.Settings{Top: *top}
	if *boost >= 0 {
		flags.KeywordBoost = boost
	}
	if *lexical >= 0 {
		flags.LexicalWeight = lexical
	}
	if *bodyWeight >= 0 {
		flags.BodyWeight = bodyWeight
	}
	o := rank.Options{IndexPath: *indexPath, MaxLine: *maxLine, Settings: func(model, cwd string) rank.Settings {
		if r, err := res.Rank(model, cwd); err == nil {
			s := flags.WithConfig(r.KeywordBoost, r.SmallEditPenalty)
			s.Reader = r.Reader
			return s
		}
		return flags
	}}
	// The embed server keeps large indexes read between prompts: it
	// ranks against them when it runs, with the settings worked out here.
	r := &embedsrv.Ranker{Environ: env.Environ,
		Runtime: func(cwd string) string { return res.Config(cwd).OnnxRuntime }, Log: warn}
	o.Remote, o.RemoteFrom = r.Rank, rank.RemoteFrom
	// Its reader reads the prompts the judge is unsure of; without an
	// answer in time, the judge's word stands.
	params := reader.Default()
	o.Reread = func(index string, q rank.Query, text string, cands []record.Candidate) {
		params.Step(cands, text, r.Reader(q.Model, q.Cwd, index))
	}
	// The patterns that find mentions compile while the query is on its
	// way (the query record brings the rest of the prompt's reading).
	go mention.Prepare()
	// A ranking run reads one index and a query or a few, and exits: the
	// collector only costs it time (a quarter of it with 10,000 skills).
	// It runs only past a soft limit, for long streams of queries.
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(256 << 20)
	return rank.Run(o, env.Stdin, env.Stdout)
}

package evalcmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skill-inject/ski/internal/background"
	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/config"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/eval"
	"github.com/skill-inject/ski/internal/gate"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/indexfile"
	"github.com/skill-inject/ski/internal/judge"
	"github.com/skill-inject/ski/internal/rank"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/render"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/settings"
	"github.com/skill-inject/ski/internal/vecfile"
)

// measured is what every mode starts from: the rows ranked through the
// pipeline, with the gate it scores them by.
type measured struct {
	cases  []eval.Case
	skills int
	rows   []eval.Labelled
	gate   gate.Settings
	tokens eval.Tokens
}

// Run measures the rows of o.TSV against the skills under o.Roots and
// writes what o asks for.
func Run(env cli.Env, o Options) error {
	warn := cli.Warner("ski-eval", env.Stderr)
	cases, err := readCases(o)
	if err != nil {
		return err
	}
	res, err := scan.Scan(scan.Options{Host: record.HostClaude, Roots: o.Roots, Warn: warn, KeepShadowed: true})
	if err != nil {
		return err
	}
	emb, err := embed.Open(o.Model, embed.Env{Environ: env.Environ})
	if err != nil {
		return err
	}
	defer emb.Close()
	idx, err := buildIndex(env, o, res.Skills, emb, warn)
	if err != nil {
		return err
	}
	m := measured{cases: cases, skills: len(res.Skills)}
	if m.gate, err = settings.Gate(o.Model, o.Config); err != nil {
		return err
	}
	ro, err := rankSettings(o)
	if err != nil {
		return err
	}
	p := eval.Pipeline{Embedder: emb, Index: idx, Gate: m.gate, Rank: ro, Previous: o.Previous}
	start := time.Now()
	if m.rows, err = p.Ranked(cases); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "ski-eval: %d prompts in %v\n", len(cases), time.Since(start).Round(time.Millisecond))
	if params, on, err := readerParams(o); err != nil {
		return err
	} else if on {
		if err := reread(env, params, m.rows, res.Skills); err != nil {
			return err
		}
	}
	// What Claude Code's model is given, with the default render settings.
	m.tokens = eval.ContextTokens(record.HostClaude, render.Settings{Mode: config.DefaultInjectMode, Strength: config.DefaultStrength, CharBudget: config.DefaultCharBudget}, o.Bare)
	if o.TrainJudge != "" {
		if err := writeJudge(o, m.rows); err != nil {
			return err
		}
	}
	if o.Features != "" {
		if err := writeFeatures(o, m.rows, emb, idx); err != nil {
			return err
		}
	}
	if o.ReaderPairs != "" {
		skills := make(map[string]record.Skill, len(res.Skills))
		for _, s := range res.Skills {
			skills[s.ID] = s
		}
		if err := eval.WriteReaderPairs(o.ReaderPairs, m.rows, skills, func(s record.Skill) string { return index.DocumentText(s, "") }); err != nil {
			return err
		}
	}
	if o.Folds > 0 {
		return crossValidated(env, o, m)
	}
	return report(env, o, m)
}

// readCases reads the labelled rows (one half of them with o.Half).
func readCases(o Options) ([]eval.Case, error) {
	f, err := os.Open(o.TSV)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cases, err := eval.ReadTSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.TSV, err)
	}
	if o.Half != "" {
		cases = eval.Half(cases, o.Half)
	}
	return cases, nil
}

// buildIndex embeds the skills (reusing o.Index's vectors, and keeping
// them there) and measures the catalog's background.
func buildIndex(env cli.Env, o Options, skills []record.Skill, emb embed.Embedder, warn func(string)) (*vecfile.Index, error) {
	var old *vecfile.Index
	if o.Index != "" {
		old = index.ReadOld(o.Index, warn)
	}
	start := time.Now()
	idx, stats, err := index.Build(skills, old, emb, time.Now())
	if err != nil {
		return nil, err
	}
	if err := background.Attach(idx, emb, nil, true); err != nil {
		return nil, err
	}
	fmt.Fprintf(env.Stderr, "ski-eval: %d skills (%s) in %v\n", len(skills), stats, time.Since(start).Round(time.Millisecond))
	if o.Index != "" && stats.Embedded+stats.Removed > 0 {
		if err := indexfile.Write(o.Index, idx); err != nil {
			return nil, err
		}
	}
	return idx, nil
}

// rankSettings are the ranking settings of o: the model's, with what the
// flags set, the judge's features on every candidate.
func rankSettings(o Options) (rank.Settings, error) {
	r, err := settings.Rank(o.Model, o.Config)
	if err != nil {
		return rank.Settings{}, err
	}
	ro := rank.Settings{Top: o.Top, NoJudge: o.NoJudge, Features: true,
		KeywordBoost: &r.KeywordBoost, SmallEditPenalty: &r.SmallEditPenalty}
	ro.LexicalWeight, ro.BodyWeight, ro.IntentBoost = o.LexicalWeight, o.BodyWeight, o.IntentBoost
	if o.Judge != "" {
		j, err := judge.Load(o.Judge)
		if err != nil {
			return ro, err
		}
		ro.Judge = j
	}
	return ro, nil
}

// writeFeatures writes every row's candidates with the judge's raw
// signals (and, with o.Background, each skill's cosines to those prompts).
func writeFeatures(o Options, rows []eval.Labelled, emb embed.Embedder, idx *vecfile.Index) error {
	var bg []string
	if o.Background != "" {
		text, err := os.ReadFile(o.Background)
		if err != nil {
			return err
		}
		bg = judge.Lines(string(text))
	}
	return eval.WriteFeatures(o.Features, rows, emb, idx, bg)
}

// crossValidated fits the gate values out of fold and writes the report
// (and checks o.Floor).
func crossValidated(env cli.Env, o Options, m measured) error {
	cv, err := crossValidate(m.rows, m.gate, o.Folds, o.Limits, o.Model, m.skills, m.tokens)
	if err != nil {
		return err
	}
	if o.JSON {
		if err := writeJSON(env, cv); err != nil {
			return err
		}
	} else if err := cv.WriteText(env.Stdout); err != nil {
		return err
	}
	if o.Floor == "" {
		return nil
	}
	doc, err := os.ReadFile(o.Floor)
	if err != nil {
		return err
	}
	return eval.CheckFloor(cv.OutOfFold, string(doc), filepath.Base(o.TSV), 2)
}

// report scores every row with the gate and writes the report, and the
// plot, candidates and misses o asks for.
func report(env cli.Env, o Options, m measured) error {
	outs := make([]eval.Outcome, len(m.rows))
	for i, r := range m.rows {
		sels := gate.Decide(r.Cands, m.gate, nil)
		outs[i] = eval.Score(r.Case, sels)
		outs[i].Tokens = m.tokens(sels)
	}
	if o.Plot != "" {
		title := fmt.Sprintf("%s: best score per prompt, %d prompts, %d skills", o.Model, len(m.cases), m.skills)
		if err := plot(o.Plot, title, outs, m.gate); err != nil {
			return err
		}
	}
	if o.Candidates != "" {
		if err := eval.WriteCandidatesFile(o.Candidates, outs); err != nil {
			return err
		}
	}
	if o.Misses {
		eval.WriteMisses(env.Stderr, outs)
	}
	rep := eval.NewReport(o.Model, m.skills, outs)
	if o.JSON {
		return writeJSON(env, rep)
	}
	return rep.WriteText(env.Stdout)
}

func plot(path, title string, outs []eval.Outcome, g gate.Settings) error {
	pf, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := eval.Plot(pf, title, outs, g.MinSimilarity, g.InjectSimilarity); err != nil {
		pf.Close()
		return err
	}
	return pf.Close()
}

func writeJSON(env cli.Env, v any) error {
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

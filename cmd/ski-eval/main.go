package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skill-inject/ski/internal/background"
	"github.com/skill-inject/ski/internal/calib"
	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/config"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/eval"
	"github.com/skill-inject/ski/internal/gate"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/indexfile"
	"github.com/skill-inject/ski/internal/judge"
	_ "github.com/skill-inject/ski/internal/onnx" // registers the ONNX models
	"github.com/skill-inject/ski/internal/rank"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/render"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/vecfile"
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

func main() { os.Exit(cli.Main("ski-eval", cli.OSEnv(), run)) }

func run(env cli.Env) error {
	fs := cli.NewFlags("ski-eval", cli.Manual(docSource), env)
	tsv := fs.String("tsv", "", "labelled prompts `file` (required)")
	var roots cli.StringList
	fs.Var(&roots, "root", "skills root `dir` (required, repeatable)")
	model := fs.String("model", embed.DefaultModel(), "model `id`")
	indexPath := fs.String("index", "", "keep the skill vectors in this `file` between runs (rebuilt when stale)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	plot := fs.String("plot", "", "draw score distributions and thresholds into this SVG `file`")
	misses := fs.Bool("misses", false, "list the rows that went wrong")
	minSim := fs.Float64("min-similarity", -1, "override min_similarity")
	injectSim := fs.Float64("inject-similarity", -1, "override inject_similarity")
	margin := fs.Float64("score-margin", -1, "override score_margin")
	boost := fs.Float64("keyword-boost", -1, "override keyword_boost")
	lexical := fs.Float64("lexical-weight", -1, "override the model's BM25 weight")
	bodyWeight := fs.Float64("body-weight", -1, "override the model's weight of the BM25 score against whole skill bodies")
	intentBoost := fs.Float64("intent-boost", -1, "override the model's boost of skills close to a prompt's intent")
	smallEdit := fs.Float64("small-edit-penalty", -1, "override the model's penalty for small-edit and explain prompts")
	half := fs.String("half", "", "score only one half of the rows: `tune` (1st, 3rd, ... row of each category) or held (2nd, 4th, ...)")
	maxSkills := fs.Int("max-skills", config.DefaultMaxSkills, "override max_skills")
	previous := fs.Bool("previous", false, "embed each prompt after another row's prompt, to measure a session's earlier prompt as part of the query")
	top := fs.Int("top", 10, "candidates ranked per prompt (0: every skill)")
	candidates := fs.String("candidates", "", "write every row's ranked candidates and decisions to this NDJSON `file`, for analysis")
	features := fs.String("features", "", "write every row's ranked candidates with the raw signals a judge is trained on to this NDJSON `file`")
	bgFile := fs.String("background", "", "generic prompts `file` (one per line): with --features, each candidate carries its skill's cosine mean and spread over them")
	injectConf := fs.Float64("inject-confidence", -1, "override inject_confidence")
	suggestConf := fs.Float64("suggest-confidence", -1, "override suggest_confidence")
	floor := fs.String("floor", "", "with --folds: fail when an out-of-fold number is more than 2 points worse than this `file`'s floor line for the model (docs/quality.md)")
	trainJudge := fs.String("train-judge", "", "fit the judge on these rows (never on shared/eval) and write its weights to this JSON `file`")
	judgeFile := fs.String("judge", "", "rank with the judge in this JSON `file` (from --train-judge) instead of the model's")
	judgeFeatures := fs.String("judge-features", "", "with --train-judge: fit on these features only (comma-separated names; the others get weight 0), to measure what each pays")
	noJudge := fs.Bool("no-judge", false, "rank without the judge: the gate reads the scores")
	folds := fs.Int("folds", 0, "fit the gate values on the rows by k-fold cross-validation grouped by skill and report them out of fold, with in-sample beside (0: the model's fixed values)")
	maxFI := fs.Float64("max-false-injection", 0.03, "with --folds: the fit's limit on rows expecting no skill that get one injected")
	maxNoise := fs.Float64("max-noise", 0.15, "with --folds: the fit's limit on rows expecting no skill that get a suggestion")
	minNearMiss := fs.Float64("min-near-miss", 0.85, "with --folds: the least share of near-miss rows the fit's inject threshold keeps right")
	if err := cli.Parse(fs, env); err != nil {
		return err
	}
	if *tsv == "" || len(roots) == 0 {
		return cli.Usagef("--tsv and --root are required")
	}
	if *floor != "" && *folds == 0 {
		return cli.Usagef("--floor needs --folds")
	}
	if *half != "" && *half != eval.Tune && *half != eval.Held {
		return cli.Usagef("--half %q: want %s or %s", *half, eval.Tune, eval.Held)
	}
	m, err := embed.Lookup(*model)
	if err != nil {
		return cli.Usagef("--model: %v", err)
	}
	f, err := os.Open(*tsv)
	if err != nil {
		return err
	}
	cases, err := eval.ReadTSV(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", *tsv, err)
	}
	if *half != "" {
		cases = eval.Half(cases, *half)
	}
	warn := func(msg string) { fmt.Fprintf(env.Stderr, "ski-eval: warning: %s\n", msg) }
	res, err := scan.Scan(scan.Options{Host: record.HostClaude, Roots: roots, Warn: warn, KeepShadowed: true})
	if err != nil {
		return err
	}
	emb, err := embed.Open(*model, embed.Env{Environ: env.Environ})
	if err != nil {
		return err
	}
	defer emb.Close()
	var old *vecfile.Index
	if *indexPath != "" {
		old = index.ReadOld(*indexPath, warn)
	}
	if *trainJudge != "" {
		*noJudge = true // trained on what the ranking gives, not on an older judge
	}
	start := time.Now()
	idx, stats, err := index.Build(res.Skills, old, emb, time.Now())
	if err != nil {
		return err
	}
	if err := background.Attach(idx, emb, nil, true); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "ski-eval: %d skills (%s) in %v\n", len(res.Skills), stats, time.Since(start).Round(time.Millisecond))
	if *indexPath != "" && stats.Embedded+stats.Removed > 0 {
		if err := indexfile.Write(*indexPath, idx); err != nil {
			return err
		}
	}
	pick := func(flag, def float64) float64 {
		if flag >= 0 {
			return flag
		}
		return def
	}
	set := gate.Settings{
		MinSimilarity:    pick(*minSim, m.MinSimilarity),
		InjectSimilarity: pick(*injectSim, m.InjectSimilarity),
		ScoreMargin:      pick(*margin, m.ScoreMargin),
		MaxSkills:        *maxSkills,
		MaxSuggestions:   config.DefaultMaxSuggestions,
		Judged: gate.Judged{
			InjectConfidence:  pick(*injectConf, m.InjectConfidence),
			SuggestConfidence: pick(*suggestConf, m.SuggestConfidence),
			// Score thresholds of one's own win over the judge, as in a config.
			Off: *minSim >= 0 || *injectSim >= 0 || *margin >= 0,
		},
	}
	kb := pick(*boost, m.KeywordBoost)
	ro := rank.Settings{Top: *top, KeywordBoost: &kb, NoJudge: *noJudge, Features: true}
	if *judgeFile != "" {
		if ro.Judge, err = judge.Load(*judgeFile); err != nil {
			return err
		}
	}
	if *lexical >= 0 {
		ro.LexicalWeight = lexical
	}
	if *bodyWeight >= 0 {
		ro.BodyWeight = bodyWeight
	}
	if *intentBoost >= 0 {
		ro.IntentBoost = intentBoost
	}
	if *smallEdit >= 0 {
		ro.SmallEditPenalty = smallEdit
	}
	p := eval.Pipeline{Embedder: emb, Index: idx, Gate: set, Rank: ro, Previous: *previous}
	start = time.Now()
	rows, err := p.Ranked(cases)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "ski-eval: %d prompts in %v\n", len(cases), time.Since(start).Round(time.Millisecond))
	// What Claude Code's model is given, with the default render settings.
	tokens := eval.ContextTokens(record.HostClaude, render.Settings{Mode: config.DefaultInjectMode, Strength: config.DefaultStrength, CharBudget: config.DefaultCharBudget})
	if *trainJudge != "" {
		if err := writeJudge(*trainJudge, *model, *tsv, *judgeFeatures, rows); err != nil {
			return err
		}
	}
	if *features != "" {
		var bg []string
		if *bgFile != "" {
			text, err := os.ReadFile(*bgFile)
			if err != nil {
				return err
			}
			bg = judge.Lines(string(text))
		}
		if err := eval.WriteFeatures(*features, rows, emb, idx, bg); err != nil {
			return err
		}
	}
	if *folds > 0 {
		lim := calib.Limits{MaxFalseInjection: *maxFI, MaxNoise: *maxNoise, MinNearMiss: *minNearMiss}
		cv, err := crossValidate(rows, set, *folds, lim, *model, len(res.Skills), tokens)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(env.Stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(cv); err != nil {
				return err
			}
		} else if err := cv.WriteText(env.Stdout); err != nil {
			return err
		}
		if *floor != "" {
			doc, err := os.ReadFile(*floor)
			if err != nil {
				return err
			}
			return eval.CheckFloor(cv.OutOfFold, string(doc), filepath.Base(*tsv), 2)
		}
		return nil
	}
	outs := make([]eval.Outcome, len(rows))
	for i, r := range rows {
		sels := gate.Decide(r.Cands, set, nil)
		outs[i] = eval.Score(r.Case, sels)
		outs[i].Tokens = tokens(sels)
	}
	report := eval.NewReport(*model, len(res.Skills), outs)
	if *plot != "" {
		pf, err := os.Create(*plot)
		if err != nil {
			return err
		}
		title := fmt.Sprintf("%s: best score per prompt, %d prompts, %d skills", *model, len(cases), len(res.Skills))
		if err := eval.Plot(pf, title, outs, set.MinSimilarity, set.InjectSimilarity); err != nil {
			pf.Close()
			return err
		}
		if err := pf.Close(); err != nil {
			return err
		}
	}
	if *candidates != "" {
		if err := eval.WriteCandidatesFile(*candidates, outs); err != nil {
			return err
		}
	}
	if *misses {
		eval.WriteMisses(env.Stderr, outs)
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	return report.WriteText(env.Stdout)
}

// crossValidate fits the gate values around the model's own on k-1 folds
// and scores the fold left out, for every fold.
func crossValidate(rows []eval.Labelled, base gate.Settings, k int, lim calib.Limits, model string, skills int, tokens eval.Tokens) (eval.CVReport, error) {
	inject := base.InjectSimilarity
	f := calib.Fitter{
		Base:    base,
		Inject:  calib.Range(inject-0.15, inject+0.10, 0.005),
		Suggest: calib.Range(inject-0.20, inject, 0.005),
		Margin:  []float64{0.02, 0.04, 0.06, 0.08, 0.12},
		Set:     calib.Scores,
		Limits:  lim,
	}
	judged := false
	for _, r := range rows {
		for _, c := range r.Cands {
			judged = judged || c.Confidence != nil
		}
	}
	if judged {
		f.Inject, f.Suggest, f.Margin, f.Set = calib.Range(0.02, 0.98, 0.01), calib.Range(0.02, 0.98, 0.01), []float64{0}, calib.Confidences
	}
	oof, in, err := eval.CrossValidate(rows, f.Decider(), k, tokens)
	if err != nil {
		return eval.CVReport{}, err
	}
	all, err := f.Fit(rows)
	if err != nil {
		return eval.CVReport{}, err
	}
	return eval.CVReport{
		Folds:     k,
		OutOfFold: eval.NewReport(model, skills, oof),
		InSample:  eval.NewReport(model, skills, in),
		Fitted:    fitted(all.Settings, judged),
	}, nil
}

// writeJudge fits the judge on the rows' judged candidates (every row but
// mentions: a candidate is right when some group expects it) and writes it.
func writeJudge(path, model, tsv, only string, rows []eval.Labelled) error {
	x, y := eval.JudgeSamples(rows)
	if only != "" {
		keep := strings.Split(only, ",")
		for _, k := range keep {
			if !slices.Contains(judge.FeatureNames, k) {
				return cli.Usagef("--judge-features: %q: want some of %s", k, strings.Join(judge.FeatureNames, ","))
			}
		}
		for _, row := range x {
			for j, name := range judge.FeatureNames {
				if !slices.Contains(keep, name) {
					row[j] = 0 // constant: its weight is fitted to 0
				}
			}
		}
	}
	m, err := judge.Train(x, y, 1)
	if err != nil {
		return err
	}
	m.Model = model
	m.TrainedOn = fmt.Sprintf("%s: %d prompts, %d candidates", filepath.ToSlash(tsv), len(rows), len(x))
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// fitted says what a fit chose.
func fitted(s gate.Settings, judged bool) string {
	if judged {
		return fmt.Sprintf("inject_confidence %.2f, suggest_confidence %.2f", s.Judged.InjectConfidence, s.Judged.SuggestConfidence)
	}
	return fmt.Sprintf("inject_similarity %.3f, min_similarity %.3f, score_margin %.3f", s.InjectSimilarity, s.MinSimilarity, s.ScoreMargin)
}

// Package evalcmd is the ski-eval command: it parses the flags into one
// Options value and runs the measurement they ask for (a report, a
// cross-validated report, a judge's training).
package evalcmd

import (
	"github.com/skill-inject/ski/internal/calib"
	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/config"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/eval"
)

// Options are ski-eval's flags, validated.
type Options struct {
	TSV   string   // labelled prompts
	Roots []string // skill roots
	Model string
	// Index keeps the skill vectors between runs; "" builds them anew.
	Index string
	// Half scores one half of the rows (eval.Tune or eval.Held); "" all.
	Half string
	// Config holds the gate and ranking values set by flags, over the
	// model's own (settings.Gate, settings.Rank): what a user's config
	// would set.
	Config config.Config
	// LexicalWeight, BodyWeight and IntentBoost, when set, replace the
	// model's ranking weights (no config key sets them).
	LexicalWeight, BodyWeight, IntentBoost *float64
	Top                                    int  // candidates ranked per prompt
	Previous                               bool // each prompt embedded after another row's

	// What to write besides the report.
	JSON   bool
	Plot   string
	Misses bool
	// Bare counts the tokens as when the host lists every skill by name
	// alone.
	Bare       bool
	Candidates string
	Features   string
	Background string // generic prompts for Features
	// ReaderPairs receives every row's prompt and candidates with the text
	// the reader reads of each skill.
	ReaderPairs string

	// Reader is "on" or "off" to run the reader on the prompts the judge
	// is unsure of, or "" for the shipped default; ReaderParams replaces
	// its shipped values (reader.Params as JSON).
	Reader       string
	ReaderParams string

	// The judge: one to rank with, none, or one to train.
	Judge         string
	NoJudge       bool
	TrainJudge    string
	JudgeFeatures string

	// Folds > 0 fits the gate values by cross-validation within Limits;
	// Floor is then checked.
	Folds  int
	Limits calib.Limits
	Floor  string
}

// Parse reads ski-eval's flags from env into Options; manual is the --help
// text.
func Parse(env cli.Env, manual string) (Options, error) {
	var o Options
	fs := cli.NewFlags("ski-eval", manual, env)
	fs.StringVar(&o.TSV, "tsv", "", "labelled prompts `file` (required)")
	var roots cli.StringList
	fs.Var(&roots, "root", "skills root `dir` (required, repeatable)")
	fs.StringVar(&o.Model, "model", embed.DefaultModel(), "model `id`")
	fs.StringVar(&o.Index, "index", "", "keep the skill vectors in this `file` between runs (rebuilt when stale)")
	fs.BoolVar(&o.JSON, "json", false, "print the report as JSON")
	fs.StringVar(&o.Plot, "plot", "", "draw score distributions and thresholds into this SVG `file`")
	fs.BoolVar(&o.Misses, "misses", false, "list the rows that went wrong")
	fs.BoolVar(&o.Bare, "bare", false, "count the tokens as when Claude Code's listing shows every skill by name alone")
	minSim := fs.Float64("min-similarity", -1, "override min_similarity")
	injectSim := fs.Float64("inject-similarity", -1, "override inject_similarity")
	margin := fs.Float64("score-margin", -1, "override score_margin")
	boost := fs.Float64("keyword-boost", -1, "override keyword_boost")
	lexical := fs.Float64("lexical-weight", -1, "override the model's BM25 weight")
	bodyWeight := fs.Float64("body-weight", -1, "override the model's weight of the BM25 score against whole skill bodies")
	intentBoost := fs.Float64("intent-boost", -1, "override the model's boost of skills close to a prompt's intent")
	smallEdit := fs.Float64("small-edit-penalty", -1, "override the model's penalty for small-edit and explain prompts")
	fs.StringVar(&o.Half, "half", "", "score only one half of the rows: `tune` (1st, 3rd, ... row of each category) or held (2nd, 4th, ...)")
	maxSkills := fs.Int("max-skills", config.DefaultMaxSkills, "override max_skills")
	fs.BoolVar(&o.Previous, "previous", false, "embed each prompt after another row's prompt, to measure a session's earlier prompt as part of the query")
	fs.IntVar(&o.Top, "top", 10, "candidates ranked per prompt (0: every skill)")
	fs.StringVar(&o.Candidates, "candidates", "", "write every row's ranked candidates and decisions to this NDJSON `file`, for analysis")
	fs.StringVar(&o.Features, "features", "", "write every row's ranked candidates with the raw signals a judge is trained on to this NDJSON `file`")
	fs.StringVar(&o.ReaderPairs, "reader-pairs", "", "write every row's prompt as ski reads it and its ranked candidates, each with the skill text the reader reads, to this NDJSON `file` (training and checking a reader)")
	fs.StringVar(&o.Background, "background", "", "generic prompts `file` (one per line): with --features, each candidate carries its skill's cosine mean and spread over them")
	injectConf := fs.Float64("inject-confidence", -1, "override inject_confidence")
	suggestConf := fs.Float64("suggest-confidence", -1, "override suggest_confidence")
	fs.StringVar(&o.Floor, "floor", "", "with --folds: fail when an out-of-fold number is more than 2 points worse than this `file`'s floor line for the model (docs/quality.md)")
	fs.StringVar(&o.TrainJudge, "train-judge", "", "fit the judge on these rows (never on shared/eval) and write its weights to this JSON `file`")
	fs.StringVar(&o.Judge, "judge", "", "rank with the judge in this JSON `file` (from --train-judge) instead of the model's")
	fs.StringVar(&o.JudgeFeatures, "judge-features", "", "with --train-judge: fit on these features only (comma-separated names; the others get weight 0), to measure what each pays")
	fs.StringVar(&o.Reader, "reader", "", "`on` or off: the reader reads the prompts the judge is unsure of (default: as shipped)")
	fs.StringVar(&o.ReaderParams, "reader-params", "", "the reader's values from this JSON `file` instead of the shipped ones")
	fs.BoolVar(&o.NoJudge, "no-judge", false, "rank without the judge: the gate reads the scores")
	fs.IntVar(&o.Folds, "folds", 0, "fit the gate values on the rows by k-fold cross-validation grouped by skill and report them out of fold, with in-sample beside (0: the model's fixed values)")
	fs.Float64Var(&o.Limits.MaxFalseInjection, "max-false-injection", 0.03, "with --folds: the fit's limit on rows expecting no skill that get one injected")
	fs.Float64Var(&o.Limits.MaxNoise, "max-noise", 0.15, "with --folds: the fit's limit on rows expecting no skill that get a suggestion")
	fs.Float64Var(&o.Limits.MinNearMiss, "min-near-miss", 0.85, "with --folds: the least share of near-miss rows the fit's inject threshold keeps right")
	if err := cli.Parse(fs, env); err != nil {
		return o, err
	}
	o.Roots = roots
	if o.TSV == "" || len(o.Roots) == 0 {
		return o, cli.Usagef("--tsv and --root are required")
	}
	if o.Floor != "" && o.Folds == 0 {
		return o, cli.Usagef("--floor needs --folds")
	}
	if o.Half != "" && o.Half != eval.Tune && o.Half != eval.Held {
		return o, cli.Usagef("--half %q: want %s or %s", o.Half, eval.Tune, eval.Held)
	}
	if o.Reader != "" && o.Reader != "on" && o.Reader != "off" {
		return o, cli.Usagef("--reader %q: want on or off", o.Reader)
	}
	if _, err := embed.Lookup(o.Model); err != nil {
		return o, cli.Usagef("--model: %v", err)
	}
	set := func(v *float64) *float64 {
		if *v >= 0 {
			return v
		}
		return nil
	}
	o.Config = config.Config{MinSimilarity: set(minSim), InjectSimilarity: set(injectSim), ScoreMargin: set(margin),
		KeywordBoost: set(boost), SmallEditPenalty: set(smallEdit), InjectConfidence: set(injectConf),
		SuggestConfidence: set(suggestConf), MaxSkills: maxSkills}
	o.LexicalWeight, o.BodyWeight, o.IntentBoost = set(lexical), set(bodyWeight), set(intentBoost)
	if o.TrainJudge != "" {
		o.NoJudge = true // trained on what the ranking gives, not on an older judge
	}
	return o, nil
}

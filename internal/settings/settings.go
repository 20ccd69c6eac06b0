// Package settings resolves what is in force for a query: the config files
// for its directory laid over the calibrated defaults of its model, and the
// environment. Each of its answers is a whole question a stage asks (how
// to rank, how to gate, how to render; scan.ForDir puts a directory's
// config and the environment together into where to look for skills), so
// that no command puts one together itself. It imports no stage's logic:
// every stage links it, and each package a stage links costs its start.
package settings

import (
	"github.com/skill-inject/ski/internal/config"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/gate"
	"github.com/skill-inject/ski/internal/reader"
	"github.com/skill-inject/ski/internal/render"
)

// Resolver loads and caches configuration per directory.
type Resolver struct {
	Env   environ.Env  // the command's environment (ski's config folder among it)
	Warn  func(string) // bad config files are reported here
	cache map[string]config.Config
}

// Config returns the merged config for cwd.
func (r *Resolver) Config(cwd string) config.Config {
	if r.cache == nil {
		r.cache = map[string]config.Config{}
	}
	c, ok := r.cache[cwd]
	if !ok {
		c = config.Load(r.Env.Dirs.Config, cwd, r.Warn)
		r.cache[cwd] = c
	}
	return c
}

// Model returns the model a config asks for, or the default.
func (r *Resolver) Model(cwd string) string {
	return config.Str(r.Config(cwd).Model, embed.DefaultModel())
}

// Gate returns the gate settings for a model and directory.
func (r *Resolver) Gate(model, cwd string) (gate.Settings, error) {
	return Gate(model, r.Config(cwd))
}

// Gate returns the gate settings of the config c over the calibrated
// defaults of model (what a directory's config files give, or a
// measurement's own values).
func Gate(model string, c config.Config) (gate.Settings, error) {
	m, err := embed.Lookup(model)
	if err != nil {
		return gate.Settings{}, err
	}
	return gate.Settings{
		MinSimilarity:    config.Float(c.MinSimilarity, m.MinSimilarity),
		InjectSimilarity: config.Float(c.InjectSimilarity, m.InjectSimilarity),
		ScoreMargin:      config.Float(c.ScoreMargin, m.ScoreMargin),
		MaxSkills:        config.Int(c.MaxSkills, config.DefaultMaxSkills),
		MaxSuggestions:   config.Int(c.MaxSuggestions, config.DefaultMaxSuggestions),
		Judged: gate.Judged{
			InjectConfidence:  config.Float(c.InjectConfidence, m.InjectConfidence),
			SuggestConfidence: config.Float(c.SuggestConfidence, m.SuggestConfidence),
			Off:               c.MinSimilarity != nil || c.InjectSimilarity != nil || c.ScoreMargin != nil,
		},
		Deny:  c.Deny,
		Force: c.Force,
	}, nil
}

// Render returns the render settings for a directory.
func (r *Resolver) Render(cwd string) (render.Settings, error) {
	c := r.Config(cwd)
	return render.Settings{
		Mode:       config.Str(c.InjectMode, config.DefaultInjectMode),
		Strength:   config.Str(c.DirectiveStrength, config.DefaultStrength),
		CharBudget: config.Int(c.CharBudget, config.DefaultCharBudget),
		Notify:     config.Bool(c.Notify, false),
	}, nil
}

// Ranking are the ranking values a config sets over a model's defaults.
type Ranking struct {
	KeywordBoost     float64 // added per keyword hit
	SmallEditPenalty float64 // taken from a small edit's scores
	Reader           bool    // the reader reads the prompts the judge is unsure of
}

// Rank returns the ranking values for a query of model from cwd.
func (r *Resolver) Rank(model, cwd string) (Ranking, error) {
	return Rank(model, r.Config(cwd))
}

// Rank returns the ranking values of the config c over the calibrated
// defaults of model.
func Rank(model string, c config.Config) (Ranking, error) {
	m, err := embed.Lookup(model)
	if err != nil {
		return Ranking{}, err
	}
	return Ranking{KeywordBoost: config.Float(c.KeywordBoost, m.KeywordBoost),
		SmallEditPenalty: config.Float(c.SmallEditPenalty, m.SmallEditPenalty),
		Reader:           config.Bool(c.Reader, reader.Default().On)}, nil
}

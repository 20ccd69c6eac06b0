// Package settings resolves what is in force for a query: the config files
// for its directory laid over the calibrated defaults of its model.
package settings

import (
	"github.com/skill-inject/ski/internal/config"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/gate"
	"github.com/skill-inject/ski/internal/render"
)

// Resolver loads and caches configuration per directory.
type Resolver struct {
	ConfigDir string       // ski's config folder
	Warn      func(string) // bad config files are reported here
	cache     map[string]config.Config
}

// Config returns the merged config for cwd.
func (r *Resolver) Config(cwd string) config.Config {
	if r.cache == nil {
		r.cache = map[string]config.Config{}
	}
	c, ok := r.cache[cwd]
	if !ok {
		c = config.Load(r.ConfigDir, cwd, r.Warn)
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
	m, err := embed.Lookup(model)
	if err != nil {
		return gate.Settings{}, err
	}
	c := r.Config(cwd)
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

// KeywordBoost returns the score added per keyword hit for a model and
// directory.
func (r *Resolver) KeywordBoost(model, cwd string) float64 {
	m, err := embed.Lookup(model)
	if err != nil {
		return 0
	}
	return config.Float(r.Config(cwd).KeywordBoost, m.KeywordBoost)
}

// SmallEditPenalty returns what is taken from the scores of a prompt that
// asks only for a small edit or an explanation, for a model and directory.
func (r *Resolver) SmallEditPenalty(model, cwd string) float64 {
	m, err := embed.Lookup(model)
	if err != nil {
		return 0
	}
	return config.Float(r.Config(cwd).SmallEditPenalty, m.SmallEditPenalty)
}

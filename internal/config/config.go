// Package config loads ski's settings: $XDG_CONFIG_HOME/ski/config.toml,
// overridden key by key by the nearest project .ski.toml. A file that cannot
// be read or parsed is reported as a warning and ignored.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// Config is the merged configuration. Pointer fields are unset when nil, so
// a stage can fall back to the default of the model in use.
type Config struct {
	Model             string   `toml:"model"`
	MinSimilarity     *float64 `toml:"min_similarity"`
	InjectSimilarity  *float64 `toml:"inject_similarity"`
	ScoreMargin       *float64 `toml:"score_margin"`
	KeywordBoost      *float64 `toml:"keyword_boost"`
	SmallEditPenalty  *float64 `toml:"small_edit_penalty"`
	MaxSkills         *int     `toml:"max_skills"`
	CharBudget        *int     `toml:"char_budget"`
	InjectMode        string   `toml:"inject_mode"`
	DirectiveStrength string   `toml:"directive_strength"`
	Notify            *bool    `toml:"notify"`
	ExtraRoots        []string `toml:"extra_roots"`
	Deny              []string `toml:"deny"`
	Force             []string `toml:"force"`
	DecisionCacheTTL  string   `toml:"decision_cache_ttl"`
	OnnxRuntime       string   `toml:"onnxruntime"`

	// Files lists the files that were read, in order.
	Files []string `toml:"-"`
}

// Valid values of the enumerated keys.
var (
	InjectModes        = []string{"directive", "body"}
	DirectiveStrengths = []string{"auto", "soft", "hard"}
)

// Defaults that do not depend on the model.
const (
	DefaultMaxSkills  = 2
	DefaultCharBudget = 6000
	DefaultInjectMode = "directive"
	DefaultStrength   = "auto"
)

// Load reads the user config under configDir (ski's own config folder) and
// the nearest .ski.toml from cwd up to the repository root. Problems are
// written to warn, one line each, and the offending file is skipped.
func Load(configDir, cwd string, warn func(string)) Config {
	var c Config
	files := []string{filepath.Join(configDir, "config.toml")}
	if p := FindProjectFile(cwd); p != "" {
		files = append(files, p)
	}
	for _, f := range files {
		layer, err := readFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			warn(fmt.Sprintf("config: %v (using defaults for this file)", err))
			continue
		}
		c.merge(layer)
		c.Files = append(c.Files, f)
	}
	return c
}

func readFile(path string) (Config, error) {
	var c Config
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		keys := make([]string, len(undecoded))
		for i, k := range undecoded {
			keys[i] = k.String()
		}
		return Config{}, fmt.Errorf("%s: unknown key(s) %s", path, strings.Join(keys, ", "))
	}
	if err := c.validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

func (c Config) validate() error {
	if c.InjectMode != "" && !oneOf(c.InjectMode, InjectModes) {
		return fmt.Errorf("inject_mode %q: want one of %s", c.InjectMode, strings.Join(InjectModes, ", "))
	}
	if c.DirectiveStrength != "" && !oneOf(c.DirectiveStrength, DirectiveStrengths) {
		return fmt.Errorf("directive_strength %q: want one of %s", c.DirectiveStrength, strings.Join(DirectiveStrengths, ", "))
	}
	if c.MaxSkills != nil && *c.MaxSkills < 0 {
		return fmt.Errorf("max_skills %d: must not be negative", *c.MaxSkills)
	}
	if c.CharBudget != nil && *c.CharBudget < 0 {
		return fmt.Errorf("char_budget %d: must not be negative", *c.CharBudget)
	}
	return nil
}

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}

// merge lays o over c: every key o sets wins.
func (c *Config) merge(o Config) {
	if o.Model != "" {
		c.Model = o.Model
	}
	setF := func(dst **float64, src *float64) {
		if src != nil {
			*dst = src
		}
	}
	setF(&c.MinSimilarity, o.MinSimilarity)
	setF(&c.InjectSimilarity, o.InjectSimilarity)
	setF(&c.ScoreMargin, o.ScoreMargin)
	setF(&c.KeywordBoost, o.KeywordBoost)
	setF(&c.SmallEditPenalty, o.SmallEditPenalty)
	if o.MaxSkills != nil {
		c.MaxSkills = o.MaxSkills
	}
	if o.CharBudget != nil {
		c.CharBudget = o.CharBudget
	}
	if o.InjectMode != "" {
		c.InjectMode = o.InjectMode
	}
	if o.DirectiveStrength != "" {
		c.DirectiveStrength = o.DirectiveStrength
	}
	if o.Notify != nil {
		c.Notify = o.Notify
	}
	if o.ExtraRoots != nil {
		c.ExtraRoots = o.ExtraRoots
	}
	if o.Deny != nil {
		c.Deny = o.Deny
	}
	if o.Force != nil {
		c.Force = o.Force
	}
	if o.DecisionCacheTTL != "" {
		c.DecisionCacheTTL = o.DecisionCacheTTL
	}
	if o.OnnxRuntime != "" {
		c.OnnxRuntime = o.OnnxRuntime
	}
}

// FindProjectFile returns the nearest .ski.toml from dir upwards, stopping at
// the repository root (a directory holding .git) or the filesystem root.
func FindProjectFile(dir string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return ""
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".ski.toml")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return ""
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Float returns *p, or def when unset.
func Float(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}

// Int returns *p, or def when unset.
func Int(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// Bool returns *p, or def when unset.
func Bool(p *bool, def bool) bool {
	if p == nil {
		return def
	}
	return *p
}

// Str returns s, or def when empty.
func Str(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

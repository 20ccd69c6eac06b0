// Package config loads ski's settings: $XDG_CONFIG_HOME/ski/config.toml,
// overridden key by key by the nearest project .ski.toml. A file that cannot
// be read or parsed is reported as a warning and ignored; an unknown key or
// a bad value is reported (with the nearest valid key) and the rest of the
// file applies.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/skill-inject/ski/internal/xdg"
)

// Config is the merged configuration. Pointer fields are unset when nil, so
// a stage can fall back to the default of the model in use.
type Config struct {
	Model             string   `toml:"model"`
	MinSimilarity     *float64 `toml:"min_similarity"`
	InjectSimilarity  *float64 `toml:"inject_similarity"`
	ScoreMargin       *float64 `toml:"score_margin"`
	InjectConfidence  *float64 `toml:"inject_confidence"`
	SuggestConfidence *float64 `toml:"suggest_confidence"`
	KeywordBoost      *float64 `toml:"keyword_boost"`
	SmallEditPenalty  *float64 `toml:"small_edit_penalty"`
	MaxSkills         *int     `toml:"max_skills"`
	MaxSuggestions    *int     `toml:"max_suggestions"`
	CharBudget        *int     `toml:"char_budget"`
	InjectMode        string   `toml:"inject_mode"`
	DirectiveStrength string   `toml:"directive_strength"`
	Notify            *bool    `toml:"notify"`
	Reader            *bool    `toml:"reader"`
	ExtraRoots        []string `toml:"extra_roots"`
	Deny              []string `toml:"deny"`
	Force             []string `toml:"force"`
	OnnxRuntime       string   `toml:"onnxruntime"`

	// Files lists the files that were read, in order.
	Files []string `toml:"-"`
	// Sources maps each key a file set to the file whose value is in
	// force (the last one read that set it).
	Sources map[string]string `toml:"-"`
}

// retired are keys ski once read and no longer does, with what to say.
var retired = map[string]string{
	"decision_cache_ttl": "ski keeps no decision cache (what a session has seen is in its ledger)",
}

// Valid values of the enumerated keys.
var (
	InjectModes        = []string{"directive", "body"}
	DirectiveStrengths = []string{"auto", "soft", "hard"}
)

// Defaults that do not depend on the model.
const (
	DefaultMaxSkills      = 2
	DefaultMaxSuggestions = 3
	DefaultCharBudget     = 6000
	DefaultInjectMode     = "directive"
	DefaultStrength       = "auto"
)

// MaxSuggestionsLimit bounds max_suggestions, so that the suggestion line
// stays one short line.
const MaxSuggestionsLimit = 5

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
		layer, err := readFile(f, warn)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			warn(fmt.Sprintf("config: %v (using defaults for this file)", err))
			continue
		}
		c.merge(layer.Config)
		c.Files = append(c.Files, f)
		for _, k := range layer.set {
			if c.Sources == nil {
				c.Sources = map[string]string{}
			}
			c.Sources[k] = f
		}
	}
	return c
}

// layer is one file's settings and the keys it set.
type layer struct {
	Config
	set []string
}

// readFile reads one file. A file that is not TOML, or gives a key a value
// of the wrong type, is an error; an unknown key or an out-of-range value
// is a warning, and the rest of the file applies.
func readFile(path string, warn func(string)) (layer, error) {
	var c Config
	data, err := xdg.ReadFile(path)
	if err != nil {
		return layer{}, err
	}
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		return layer{}, fmt.Errorf("%s: %w", path, err)
	}
	bad := map[string]bool{}
	for _, k := range md.Undecoded() {
		// A table's keys are reported with it.
		if bad[k[0]] {
			continue
		}
		key := k[0]
		bad[key] = true
		switch why, ok := retired[key]; {
		case ok:
			warn(fmt.Sprintf("config: %s: %s is no longer used: %s; ignored", path, key, why))
		default:
			warn(fmt.Sprintf("config: %s: unknown key %s (did you mean %s?); ignored", path, key, Nearest(key)))
		}
	}
	for key, problem := range c.invalid() {
		warn(fmt.Sprintf("config: %s: %s; ignored", path, problem))
		c.clear(key)
		bad[key] = true
	}
	var set []string
	for _, k := range md.Keys() {
		if len(k) == 1 && !bad[k[0]] {
			set = append(set, k[0])
		}
	}
	return layer{Config: c, set: set}, nil
}

// invalid returns, per key, what is wrong with its value.
func (c Config) invalid() map[string]string {
	bad := map[string]string{}
	if c.InjectMode != "" && !slices.Contains(InjectModes, c.InjectMode) {
		bad["inject_mode"] = fmt.Sprintf("inject_mode %q: want one of %s", c.InjectMode, strings.Join(InjectModes, ", "))
	}
	if c.DirectiveStrength != "" && !slices.Contains(DirectiveStrengths, c.DirectiveStrength) {
		bad["directive_strength"] = fmt.Sprintf("directive_strength %q: want one of %s", c.DirectiveStrength, strings.Join(DirectiveStrengths, ", "))
	}
	if c.MaxSkills != nil && *c.MaxSkills < 0 {
		bad["max_skills"] = fmt.Sprintf("max_skills %d: must not be negative", *c.MaxSkills)
	}
	if c.MaxSuggestions != nil && (*c.MaxSuggestions < 0 || *c.MaxSuggestions > MaxSuggestionsLimit) {
		bad["max_suggestions"] = fmt.Sprintf("max_suggestions %d: want 0 (no suggestions) to %d", *c.MaxSuggestions, MaxSuggestionsLimit)
	}
	for key, v := range map[string]*float64{"inject_confidence": c.InjectConfidence, "suggest_confidence": c.SuggestConfidence} {
		if v != nil && (*v < 0 || *v > 1) {
			bad[key] = fmt.Sprintf("%s %g: want a confidence from 0 to 1", key, *v)
		}
	}
	if c.CharBudget != nil && *c.CharBudget < 0 {
		bad["char_budget"] = fmt.Sprintf("char_budget %d: must not be negative", *c.CharBudget)
	}
	return bad
}

// clear unsets the field of key.
func (c *Config) clear(key string) {
	switch key {
	case "inject_mode":
		c.InjectMode = ""
	case "directive_strength":
		c.DirectiveStrength = ""
	case "max_skills":
		c.MaxSkills = nil
	case "max_suggestions":
		c.MaxSuggestions = nil
	case "char_budget":
		c.CharBudget = nil
	case "inject_confidence":
		c.InjectConfidence = nil
	case "suggest_confidence":
		c.SuggestConfidence = nil
	}
}

// Keys lists the keys a config file may set, in the order of Config.
func Keys() []string {
	t := reflect.TypeFor[Config]()
	var keys []string
	for i := range t.NumField() {
		if k := t.Field(i).Tag.Get("toml"); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	return keys
}

// Nearest returns the valid key closest to key in edit distance.
func Nearest(key string) string {
	best, bestD := "", -1
	for _, k := range Keys() {
		if d := Distance(strings.ToLower(key), k); bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
	setF(&c.InjectConfidence, o.InjectConfidence)
	setF(&c.SuggestConfidence, o.SuggestConfidence)
	setF(&c.KeywordBoost, o.KeywordBoost)
	setF(&c.SmallEditPenalty, o.SmallEditPenalty)
	if o.MaxSkills != nil {
		c.MaxSkills = o.MaxSkills
	}
	if o.MaxSuggestions != nil {
		c.MaxSuggestions = o.MaxSuggestions
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
	if o.Reader != nil {
		c.Reader = o.Reader
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

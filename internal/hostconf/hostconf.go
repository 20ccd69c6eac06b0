// Package hostconf reads what a host's own configuration says about
// skills: for Claude Code, the settings files' skillOverrides, model and
// skill-listing keys, and the usage counts in ~/.claude.json. It only
// reads; an unreadable or malformed file counts as empty.
package hostconf

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Claude is what Claude Code's settings, merged as it merges them (user,
// then project, then local), say about skills.
type Claude struct {
	// Overrides are skillOverrides: a skill name to "on", "off",
	// "name-only" or "user-invocable-only".
	Overrides map[string]string
	// Model is the settings' model ("" when none sets it).
	Model string
	// BudgetFraction is skillListingBudgetFraction (0: the default).
	BudgetFraction float64
	// MaxDescChars is skillListingMaxDescChars (0: the default).
	MaxDescChars int
	// Usage is skillUsage of ~/.claude.json: per skill name, how often and
	// when (Unix milliseconds) it was last used.
	Usage map[string]Usage
}

// Usage is one skill's entry in skillUsage.
type Usage struct {
	Count    float64
	LastUsed float64 // Unix milliseconds
}

// ReadClaude reads Claude Code's settings for a project: configDir is
// Claude Code's folder (~/.claude or $CLAUDE_CONFIG_DIR), globalFile its
// global state (~/.claude.json, or .claude.json in $CLAUDE_CONFIG_DIR).
func ReadClaude(configDir, globalFile, cwd string) Claude {
	c := Claude{Overrides: map[string]string{}, Usage: map[string]Usage{}}
	files := []string{filepath.Join(configDir, "settings.json")}
	if cwd != "" {
		files = append(files, filepath.Join(cwd, ".claude", "settings.json"), filepath.Join(cwd, ".claude", "settings.local.json"))
	}
	for _, f := range files {
		s := readJSON(f)
		s.Get("skillOverrides").ForEach(func(k, v gjson.Result) bool {
			if v.Type == gjson.String {
				c.Overrides[k.Str] = v.Str
			}
			return true
		})
		if m := s.Get("model"); m.Type == gjson.String && m.Str != "" {
			c.Model = m.Str
		}
		if f := s.Get("skillListingBudgetFraction"); f.Type == gjson.Number && f.Num > 0 && f.Num <= 1 {
			c.BudgetFraction = f.Num
		}
		if n := s.Get("skillListingMaxDescChars"); n.Type == gjson.Number && n.Num >= 1 {
			c.MaxDescChars = int(n.Num)
		}
	}
	readJSON(globalFile).Get("skillUsage").ForEach(func(k, v gjson.Result) bool {
		c.Usage[k.Str] = Usage{Count: v.Get("usageCount").Num, LastUsed: v.Get("lastUsedAt").Num}
		return true
	})
	return c
}

// GlobalFile is Claude Code's global state file for a home and config
// folder variable: ~/.claude.json, or .claude.json inside
// $CLAUDE_CONFIG_DIR when that is set.
func GlobalFile(home, configDirVar string) string {
	if configDirVar != "" {
		return filepath.Join(configDirVar, ".claude.json")
	}
	return filepath.Join(home, ".claude.json")
}

// maxFile bounds a settings file read.
const maxFile = 16 << 20

func readJSON(path string) gjson.Result {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxFile {
		return gjson.Result{}
	}
	b, err := os.ReadFile(path)
	if err != nil || !gjson.ValidBytes(b) {
		return gjson.Result{}
	}
	return gjson.ParseBytes(b)
}

// Override is how the settings show a skill invoked as invoke: "on",
// "off", "name-only" or "user-invocable-only". Plugin skills ("p:name")
// are always on, as in Claude Code.
func (c Claude) Override(invoke string) string {
	if strings.Contains(invoke, ":") {
		return "on"
	}
	if v, ok := c.Overrides[invoke]; ok {
		return v
	}
	return "on"
}

// Score is Claude Code's usage score of the skill listed as name: how often
// it was used, halved for every week since its last use, never below a
// tenth of the count; 0 for a skill never used.
func (c Claude) Score(name string, now time.Time) float64 {
	u, ok := c.Usage[name]
	if !ok {
		return 0
	}
	days := (float64(now.UnixMilli()) - u.LastUsed) / 86_400_000
	return u.Count * math.Max(math.Pow(0.5, days/7), 0.1)
}

// HiddenFromModel reports whether the settings keep the skill from the
// model: turned off, or for the user only.
func (c Claude) HiddenFromModel(invoke string) bool {
	o := c.Override(invoke)
	return o == "off" || o == "user-invocable-only"
}

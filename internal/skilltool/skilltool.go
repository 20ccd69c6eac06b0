// Package skilltool is what the model sees of ski's two tools, skill_search
// and skill_load: their names and descriptions, their arguments, and the
// text their results are written in. ski-mcp serves them, the opencode
// plugin registers them under the same names, and the observe hook reads
// their results back (Hits) to record what a search found.
package skilltool

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/skill-inject/ski/internal/cut"
)

// Tool names, as the MCP server and the opencode plugin register them.
const (
	Search = "skill_search"
	Load   = "skill_load"
)

// ServerName is the name ski's MCP server is registered under, in Claude
// Code's user-scope mcpServers and in the plugin's .mcp.json.
const ServerName = "ski"

// ClaudeToolNames are the names Claude Code gives tool in the model's tool
// list: mcp__<server>__<tool> for the user-scope server, and
// mcp__plugin_<plugin>_<server>__<tool> for the plugin's.
func ClaudeToolNames(tool string) []string {
	return []string{"mcp__" + ServerName + "__" + tool, "mcp__plugin_ski_" + ServerName + "__" + tool}
}

// ToolOf is the tool (Search or Load) a host's tool name stands for, or ""
// for any other tool.
func ToolOf(name string) string {
	for _, t := range []string{Search, Load} {
		if name == t {
			return t
		}
		for _, n := range ClaudeToolNames(t) {
			if name == n {
				return t
			}
		}
	}
	return ""
}

// Descriptions of the tools and their arguments: every request a host
// makes carries them, so every word costs tokens.
const (
	SearchDescription = "Search the skills installed for this project (folders with a SKILL.md) by what a task needs. " +
		"Use it before starting a task a skill may cover, above all when the listed skills show only names or none clearly fits; " +
		"then load the best one with " + Load + ". Returns the best skills, best first: name, description, " +
		"band (inject: strong match; suggest: may help; weak) and why."
	QueryDescription = "the task, in a few words"
	LimitDescription = "how many skills to return (1-20, default 5)"

	LoadDescription = "Load a skill: its SKILL.md instructions, its base directory and bundled files. " +
		"Give the name (or id) " + Search + " or the skill list shows, then follow the instructions."
	NameDescription = "the skill's name or id"
)

// Definition is a tool as the opencode plugin registers it: its
// description, and its arguments' descriptions by name.
type Definition struct {
	Description string            `json:"description"`
	Args        map[string]string `json:"args"`
	MaxLimit    int               `json:"maxLimit,omitempty"`
}

// Definitions are both tools, by name.
func Definitions() map[string]Definition {
	return map[string]Definition{
		Search: {Description: SearchDescription, Args: map[string]string{"query": QueryDescription, "limit": LimitDescription}, MaxLimit: MaxLimit},
		Load:   {Description: LoadDescription, Args: map[string]string{"name": NameDescription}},
	}
}

// Limits of skill_search.
const (
	DefaultLimit = 5
	MaxLimit     = 20
	// MaxQuery is the longest query read, in bytes; a longer one is cut.
	MaxQuery = 4096
)

// SearchArgs are skill_search's arguments.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"the task, in a few words"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many skills to return (1-20, default 5)"`
}

// LoadArgs are skill_load's arguments.
type LoadArgs struct {
	Name string `json:"name" jsonschema:"the skill's name or id"`
}

// Hit is one skill a search returns.
type Hit struct {
	Name        string  `json:"name"` // what the host's skill tool and skill_load take
	ID          string  `json:"id"`
	Description string  `json:"description"`
	Band        string  `json:"band"` // "inject", "suggest" or "weak"
	Why         string  `json:"why"`
	Score       float64 `json:"score"`
	Path        string  `json:"path"`
}

// maxHitDescription caps a description in a search result, in characters.
const maxHitDescription = 200

// FormatHits is the text of a search's result for the model: a header
// line, then one line per hit, best first.
func FormatHits(query string, hits []Hit, note string) string {
	var b strings.Builder
	if len(hits) == 0 {
		fmt.Fprintf(&b, "ski: no skill matches %q.", query)
	} else {
		fmt.Fprintf(&b, "ski: %d skills for %q, best first (load one with %s):\n", len(hits), query, Load)
		for i, h := range hits {
			fmt.Fprintf(&b, "%d. %s [%s] — %s (%s)\n", i+1, h.Name, h.Band, cut.Short(h.Description, maxHitDescription), h.Why)
		}
	}
	if note != "" {
		b.WriteString("\n" + note)
	}
	return strings.TrimRight(b.String(), "\n")
}

var hitLine = regexp.MustCompile(`(?m)^\d+\. (\S+) \[(?:inject|suggest|weak)\] — `)

// HitNames reads the skill names back from a search result's text
// (FormatHits), best first.
func HitNames(text string) []string {
	var names []string
	for _, m := range hitLine.FindAllStringSubmatch(text, MaxLimit) {
		names = append(names, m[1])
	}
	return names
}

// AlreadyLoaded is what a second skill_load of a skill in a session
// answers instead of the body.
func AlreadyLoaded(name string) string {
	return fmt.Sprintf("ski: the skill %q is already loaded in this conversation; follow the instructions it gave above.", name)
}

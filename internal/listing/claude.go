// Package listing works out what a host shows the model of each skill in
// its skill listing, the list of skills it puts before the model: the
// description (whole or cut), the bare name, or nothing. Claude Code's
// listing has a budget of characters; past it most skills are listed by
// name alone. The rules are those of Claude Code 2.1.197, read from its
// code and checked against what it sends to the model API (e2e tests).
package listing

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// States of a skill in a listing.
const (
	Full   = "full"   // its name and whole description
	Cut    = "cut"    // its name and its description cut short
	Bare   = "bare"   // its name alone
	Absent = "absent" // not listed at all
)

// Entry is one line of Claude Code's listing, in listing order.
type Entry struct {
	// Name is what the line starts with, the name the Skill tool takes:
	// a skill's folder name, or "plugin:name".
	Name string
	// Text is the description as Claude Code reads it: the frontmatter's
	// description, then " - " and when_to_use when there is one.
	Text string
	// NameOnly is a skill the settings' skillOverrides list by name only.
	NameOnly bool
	// BuiltIn marks a skill that comes with Claude Code; Bundled ones keep
	// their description over budget. Width is their line's width.
	BuiltIn, Bundled bool
	Width            int
	// Usage is the skill's usage score (hostconf.Claude.Score).
	Usage float64
}

// Claude Code's defaults.
const (
	// DefaultMaxDescChars is where a description is cut
	// (skillListingMaxDescChars), in UTF-16 code units.
	DefaultMaxDescChars = 1536
	// DefaultBudgetFraction is the share of the context window, in
	// characters, the listing may take (skillListingBudgetFraction).
	DefaultBudgetFraction = 0.01
)

// line is an entry's line with its description, and whether the
// description was cut to fit maxDesc.
func (e Entry) line(maxDesc int) (string, bool) {
	if e.NameOnly {
		return "- " + e.Name, false
	}
	text, cut := e.Text, false
	if utf16Len(text) > maxDesc {
		text, cut = cutUTF16(text, maxDesc-1)+"…", true
	}
	return "- " + e.Name + ": " + text, cut
}

// Lay lays out a listing as Claude Code does and returns each entry's
// state (Full, Cut or Bare). Within budget every entry keeps its line.
// Past it, bundled skills and name-only ones keep theirs; every other
// starts as a bare name and, most used first (then in listing order), gets
// its description back when what is left of the budget holds it.
func Lay(entries []Entry, budget, maxDesc int) []string {
	if maxDesc <= 0 {
		maxDesc = DefaultMaxDescChars
	}
	n := len(entries)
	states := make([]string, n)
	full := make([]int, n) // width of the line with its description
	bare := make([]int, n) // width of the bare name's line
	total := max(n-1, 0)   // the newlines between lines
	for i, e := range entries {
		line, cut := e.line(maxDesc)
		full[i], bare[i] = Width(line), Width(e.Name)+2
		if e.BuiltIn && e.Width > 0 {
			full[i] = e.Width
		}
		states[i] = Full
		switch {
		case e.NameOnly:
			states[i] = Bare
		case cut:
			states[i] = Cut
		}
		total += full[i]
	}
	if total <= budget {
		return states
	}
	kept := func(i int) bool { return entries[i].Bundled || entries[i].NameOnly }
	left := budget - max(n-1, 0)
	var order []int
	for i := range entries {
		if kept(i) {
			left -= full[i]
			continue
		}
		left -= bare[i]
		order = append(order, i)
	}
	sort.SliceStable(order, func(a, b int) bool { return entries[order[a]].Usage > entries[order[b]].Usage })
	for _, i := range order {
		if extra := full[i] - bare[i]; extra <= left {
			left -= extra
		} else {
			states[i] = Bare
		}
	}
	return states
}

// olderModels are the models Claude Code counts 4 characters a token
// for; it counts 3 for the others.
var olderModels = []string{
	"claude-3-opus", "claude-3-sonnet", "claude-3-haiku", "claude-3-5-sonnet", "claude-3-5-haiku",
	"claude-3-7-sonnet", "claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-5", "claude-opus-4-6",
	"claude-sonnet-4-0", "claude-sonnet-4-5", "claude-sonnet-4-6", "claude-haiku-4-5",
}

// aliases are the model names Claude Code resolves to its current models.
var aliases = map[string]string{
	"sonnet": "claude-sonnet-4-6", "opus": "claude-opus-4-8", "haiku": "claude-haiku-4-5",
	"opusplan": "claude-sonnet-4-6", "best": "claude-opus-4-8", "fable": "claude-fable-5",
}

// families are the model families Claude Code tells apart, most specific
// first: a model id that contains one belongs to it.
var families = []string{
	"claude-fable-5", "claude-mythos-5", "claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6",
	"claude-opus-4-5", "claude-opus-4-1", "claude-sonnet-5", "claude-sonnet-4-6", "claude-sonnet-4-5",
	"claude-haiku-4-5", "claude-3-7-sonnet", "claude-3-5-sonnet", "claude-3-5-haiku", "claude-3-opus",
	"claude-3-sonnet", "claude-3-haiku",
}

// Family is the model family of a model name as Claude Code reads it
// (an alias resolved, "[1m]" and a date dropped), "" for "".
func Family(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	m = strings.TrimSuffix(m, "[1m]")
	if a, ok := aliases[m]; ok {
		return a
	}
	for _, f := range families {
		if strings.Contains(m, f) {
			return f
		}
	}
	for _, f := range []string{"claude-opus-4", "claude-sonnet-4"} {
		if i := strings.Index(m, f); i >= 0 && !startsWithVersion(m[i+len(f):]) {
			return f + "-0"
		}
	}
	if len(m) > 9 && m[len(m)-9] == '-' && strings.Trim(m[len(m)-8:], "0123456789") == "" {
		m = m[:len(m)-9]
	}
	return strings.NewReplacer(".", "-", "_", "-").Replace(m)
}

// startsWithVersion: s starts with "-" and one digit not followed by
// another (as "-5" in "claude-opus-4-5", not "-2025…").
func startsWithVersion(s string) bool {
	return len(s) >= 2 && s[0] == '-' && s[1] >= '0' && s[1] <= '9' && (len(s) == 2 || s[2] < '0' || s[2] > '9')
}

// ClaudeBudget is the listing's budget in characters for a model: the
// override ($SLASH_COMMAND_TOOL_CHAR_BUDGET) when not 0, else the context
// window (1,000,000 tokens for a "[1m]" model, else 200,000) times the
// characters per token (4 for the older models, else 3) times fraction
// (0: DefaultBudgetFraction). With no model ("") it is the smallest budget
// any model gets.
func ClaudeBudget(model string, fraction, override float64) int {
	if override != 0 && !math.IsNaN(override) {
		return int(override)
	}
	if fraction <= 0 {
		fraction = DefaultBudgetFraction
	}
	window, perToken := 200_000.0, 3.0
	if strings.HasSuffix(strings.ToLower(strings.TrimSpace(model)), "[1m]") {
		window = 1_000_000
	}
	if slices.Contains(olderModels, Family(model)) {
		perToken = 4
	}
	return max(1, int(math.Floor(window*perToken*fraction)))
}

package listing

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/skill-inject/ski/internal/hostconf"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/skill"
)

// Shown is how a host lists one of ski's skills.
type Shown struct {
	ID    string // ski's id of the skill
	Name  string // the name the host lists it by ("" when Absent)
	State string // Full, Cut, Bare or Absent; "" when not known
}

// Listing is what a host shows the model of ski's catalog.
type Listing struct {
	Host  string
	Model string // the model the budget is for; "" when none is known
	// Budget is the listing's budget in characters; 0 for a host that
	// lists every skill whole (opencode, measured with 1.18.33 at 194
	// skills).
	Budget int
	// Skills are the catalog's skills in its order, then those the host
	// lists that the catalog leaves out (ID "").
	Skills []Shown
}

// Count is how many of the skills are in state.
func (l Listing) Count(state string) int {
	n := 0
	for _, s := range l.Skills {
		if s.State == state {
			n++
		}
	}
	return n
}

// Names are the names (ids for absent skills) of the skills in state.
func (l Listing) Names(state string) []string {
	var out []string
	for _, s := range l.Skills {
		if s.State == state {
			out = append(out, cmp.Or(s.Name, s.ID))
		}
	}
	return out
}

// Opencode is opencode's listing: every skill whole.
func Opencode(skills []record.Skill) Listing {
	l := Listing{Host: record.HostOpencode}
	for _, sk := range skills {
		state := Full
		if sk.DisableModelInvocation {
			state = Absent
		}
		l.Skills = append(l.Skills, Shown{ID: sk.ID, Name: sk.Invoke, State: state})
	}
	return l
}

// ClaudeInput is what Claude Code's listing depends on.
type ClaudeInput struct {
	// Skills are ski's catalog for Claude Code from the project.
	Skills []record.Skill
	// Folders are Claude Code's skill folders: its user folder
	// (~/.claude/skills), then the project's, nearest first.
	Folders []string
	// Conf is what Claude Code's settings say (skillOverrides, usage,
	// the listing's keys).
	Conf hostconf.Claude
	// Model is the model the session runs; "": the smallest budget.
	Model string
	// Override is $SLASH_COMMAND_TOOL_CHAR_BUDGET as a number (0: unset).
	Override float64
	Now      time.Time
	// Given is set when the catalog comes from folders ski was given
	// instead of the host's (SKI_ROOTS): a skill of it Claude Code does not
	// list from its own folders is not known to be absent (state "").
	Given bool
}

// Claude is Claude Code's listing of the catalog, laid out under the
// model's budget: the skills one folder deep in its skill folders (each
// folder's sorted by name, including those ski's catalog leaves out, which
// take room all the same), the commands beside them, the plugins' skills,
// then its own; not those
// the model may not invoke, nor those its settings turn off for the model.
// A skill of the catalog it does not list is Absent (or not known, with
// ClaudeInput.Given).
func Claude(in ClaudeInput) Listing {
	l := Listing{Host: record.HostClaude, Model: in.Model,
		Budget: ClaudeBudget(in.Model, in.Conf.BudgetFraction, in.Override)}
	entries, index, read := claudeEntries(in)
	for _, b := range claudeBuiltIns {
		taken := slices.ContainsFunc(entries, func(e Entry) bool { return e.Name == b.Name })
		if b.Bundled && taken {
			continue // a skill of the user's shadows it
		}
		entries = append(entries, b)
	}
	states := Lay(entries, l.Budget, in.Conf.MaxDescChars)
	l.Skills = make([]Shown, len(in.Skills))
	unlisted := Absent
	if in.Given {
		unlisted = ""
	}
	for i, sk := range in.Skills {
		l.Skills[i] = Shown{ID: sk.ID, State: unlisted}
		if read[i] {
			l.Skills[i].State = Absent
		}
	}
	for k, i := range index {
		if i < 0 {
			l.Skills = append(l.Skills, Shown{Name: entries[k].Name, State: states[k]})
			continue
		}
		l.Skills[i].Name, l.Skills[i].State = entries[k].Name, states[k]
	}
	return l
}

// listed is a skill as Claude Code reads it.
type listed struct {
	name, description, whenToUse string
	noModel                      bool // disable-model-invocation
}

// claudeEntries are the lines Claude Code lists for the user's skills, in
// its order, and for each the index of the catalog's skill it is (-1 for
// one the catalog leaves out); read are the catalog's skills Claude Code
// reads, listed or not.
func claudeEntries(in ClaudeInput) (entries []Entry, index []int, read map[int]bool) {
	byPath := map[string]int{}
	for i, sk := range in.Skills {
		byPath[sk.Path] = i
	}
	read = map[int]bool{}
	add := func(sk listed, i int) {
		if i >= 0 {
			read[i] = true
		}
		if sk.noModel || in.Conf.HiddenFromModel(sk.name) {
			return
		}
		text := sk.description
		if sk.whenToUse != "" {
			text += " - " + sk.whenToUse
		}
		entries = append(entries, Entry{Name: sk.name, Text: text,
			NameOnly: in.Conf.Override(sk.name) == "name-only", Usage: in.Conf.Score(sk.name, in.Now)})
		index = append(index, i)
	}
	for _, folder := range in.Folders {
		for _, name := range skillFolders(folder) {
			path := filepath.Join(folder, name, skill.FileName)
			if i, ok := byPath[path]; ok {
				sk := in.Skills[i]
				add(listed{name, sk.Description, sk.WhenToUse, sk.DisableModelInvocation}, i)
			} else if sk, ok := readListed(path); ok {
				add(sk, -1)
			}
		}
	}
	for _, c := range claudeCommands(in.Folders) {
		add(c, -1)
	}
	for i, sk := range in.Skills {
		if sk.Scope == record.ScopePlugin {
			add(listed{sk.Invoke, sk.Description, sk.WhenToUse, sk.DisableModelInvocation}, i)
		}
	}
	return entries, index, read
}

// skillFolders are the names of the folders in dir that hold a SKILL.md,
// in Claude Code's order.
func skillFolders(dir string) []string {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, de := range des {
		st, err := os.Stat(filepath.Join(dir, de.Name(), skill.FileName))
		if err == nil && st.Mode().IsRegular() {
			names = append(names, de.Name())
		}
	}
	slices.SortStableFunc(names, Compare)
	return names
}

// readListed reads a SKILL.md the catalog leaves out (a skill shadowed by
// another of the same name, say). One ski cannot parse is left out here
// too.
func readListed(path string) (listed, bool) {
	doc, err := skill.ReadDocument(path)
	if err != nil {
		return listed{}, false
	}
	return listed{filepath.Base(filepath.Dir(path)), doc.Description, doc.WhenToUse, doc.DisableModelInvocation}, true
}

// claudeBuiltIns are the skills Claude Code 2.1.197 lists after the
// user's, run headless with an API key, and the width of each one's line
// (measured): bundled skills keep their description over budget, the
// built-in commands do not.
var claudeBuiltIns = []Entry{
	{Name: "deep-research", BuiltIn: true, Bundled: true, Width: 487},
	{Name: "update-config", BuiltIn: true, Bundled: true, Width: 707},
	{Name: "keybindings-help", BuiltIn: true, Bundled: true, Width: 248},
	{Name: "verify", BuiltIn: true, Bundled: true, Width: 260},
	{Name: "code-review", BuiltIn: true, Bundled: true, Width: 361},
	{Name: "simplify", BuiltIn: true, Bundled: true, Width: 188},
	{Name: "fewer-permission-prompts", BuiltIn: true, Bundled: true, Width: 191},
	{Name: "loop", BuiltIn: true, Bundled: true, Width: 314},
	{Name: "claude-api", BuiltIn: true, Bundled: true, Width: 1080},
	{Name: "run", BuiltIn: true, Bundled: true, Width: 368},
	{Name: "init", BuiltIn: true, Width: 67},
	{Name: "review", BuiltIn: true, Width: 78},
	{Name: "security-review", BuiltIn: true, Width: 90},
}

package listing

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/hostconf"
	"github.com/skill-inject/ski/internal/record"
)

// TestWidth holds the widths Claude Code 2.1.197 counted for a
// description holding each (its "Skill listing over budget: N chars").
func TestWidth(t *testing.T) {
	for s, want := range map[string]int{
		"x": 1, "xx": 2, "x\ny": 2, "x\ty": 2, "x—y": 3, "x中y": 4, "x😀y": 4,
		"xe\u0301y": 3, "xéy": 3, "x→y": 3, "x✅y": 4, "": 0,
	} {
		if got := Width(s); got != want {
			t.Errorf("Width(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestCutUTF16(t *testing.T) {
	if got := cutUTF16("ab😀cd", 3); got != "ab" {
		t.Errorf("a surrogate pair split: %q", got)
	}
	if got := cutUTF16("ab😀cd", 4); got != "ab😀" {
		t.Errorf("got %q", got)
	}
	if n := utf16Len("ab😀"); n != 4 {
		t.Errorf("utf16Len = %d", n)
	}
}

func TestCompare(t *testing.T) {
	names := []string{"b", "Zeta", "a11y-audit", "ab-test-setup", "a_b", "a-b", "alpha", "A", "a"}
	slices.SortStableFunc(names, Compare)
	want := []string{"a", "A", "a_b", "a-b", "a11y-audit", "ab-test-setup", "alpha", "b", "Zeta"}
	if !slices.Equal(names, want) {
		t.Errorf("sorted %v, want %v", names, want)
	}
}

func TestClaudeBudget(t *testing.T) {
	for _, tt := range []struct {
		model              string
		fraction, override float64
		want               int
	}{
		{"claude-sonnet-4-5", 0, 0, 8000},
		{"claude-sonnet-4-5-20250929", 0, 0, 8000},
		{"claude-opus-4-7", 0, 0, 6000},
		{"claude-sonnet-4-20250514", 0, 0, 8000}, // claude-sonnet-4-0
		{"sonnet", 0, 0, 8000},
		{"opus", 0, 0, 6000},
		{"sonnet[1m]", 0, 0, 40000},
		{"claude-opus-4-7[1m]", 0, 0, 30000},
		{"", 0, 0, 6000},
		{"claude-sonnet-4-5", 0.02, 0, 16000},
		{"claude-sonnet-4-5", 0, 1234, 1234},
	} {
		if got := ClaudeBudget(tt.model, tt.fraction, tt.override); got != tt.want {
			t.Errorf("ClaudeBudget(%q, %v, %v) = %d, want %d", tt.model, tt.fraction, tt.override, got, tt.want)
		}
	}
}

func entry(name string, descLen int) Entry {
	return Entry{Name: name, Text: strings.Repeat("d", descLen)}
}

func TestLay(t *testing.T) {
	// Lines: "- a: " + 10 = 15 each, three of them and two newlines: 47.
	three := []Entry{entry("a", 10), entry("b", 10), entry("c", 10)}
	if got := Lay(three, 47, 0); !slices.Equal(got, []string{Full, Full, Full}) {
		t.Errorf("within budget: %v", got)
	}
	// 46: over. All bare: 3+3+3+2 = 11; each description costs 12 more:
	// 35 left holds two, in listing order.
	if got := Lay(three, 46, 0); !slices.Equal(got, []string{Full, Full, Bare}) {
		t.Errorf("over budget: %v", got)
	}
	// The most used first; one that does not fit is passed over for a
	// later one that does.
	used := []Entry{entry("a", 30), entry("b", 10), entry("c", 10)}
	used[2].Usage = 5
	if got := Lay(used, 40, 0); !slices.Equal(got, []string{Bare, Full, Full}) {
		t.Errorf("usage order: %v", got)
	}
	// Bundled and name-only lines are kept whatever the budget.
	kept := []Entry{{Name: "x", BuiltIn: true, Bundled: true, Width: 30}, {Name: "y", NameOnly: true, Text: "d"}, entry("a", 10)}
	if got := Lay(kept, 10, 0); !slices.Equal(got, []string{Full, Bare, Bare}) {
		t.Errorf("kept lines: %v", got)
	}
	// A description over the cap is cut, and counted cut.
	if got := Lay([]Entry{entry("a", 30)}, 1000, 20); !slices.Equal(got, []string{Cut}) {
		t.Errorf("cap: %v", got)
	}
}

// TestClaude lays out a catalog of two folders: the user's skills before
// the project's, each sorted; a skill deeper down, one the model may not
// invoke and one the settings turn off are absent; a name-only skill is
// bare; a shadowed skill the catalog leaves out still takes room.
func TestClaude(t *testing.T) {
	home := t.TempDir()
	user := filepath.Join(home, ".claude", "skills")
	project := filepath.Join(home, "p", ".claude", "skills")
	write := func(dir, name, desc string) {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: "+desc+"\n---\nbody\n"), 0o644)
	}
	sk := func(dir, name string, scope string) record.Skill {
		return record.Skill{ID: name, Name: name, Invoke: name, Description: "does " + name, Scope: scope, Root: dir,
			Dir: filepath.Join(dir, name), Path: filepath.Join(dir, name, "SKILL.md")}
	}
	for _, n := range []string{"beta", "alpha", "gamma", "off", "only", "shadowed"} {
		write(user, n, "does "+n)
	}
	write(project, "delta", "does delta")
	deep := sk(user, "nested/deep", record.ScopeUser)
	nomodel := sk(user, "gamma", record.ScopeUser)
	nomodel.DisableModelInvocation = true
	skills := []record.Skill{sk(user, "beta", record.ScopeUser), sk(user, "alpha", record.ScopeUser), nomodel,
		sk(user, "off", record.ScopeUser), sk(user, "only", record.ScopeUser), sk(project, "delta", record.ScopeProject), deep}
	conf := hostconf.Claude{Overrides: map[string]string{"off": "off", "only": "name-only"}}
	l := Claude(ClaudeInput{Skills: skills, Folders: []string{user, project}, Conf: conf, Model: "claude-sonnet-4-5", Now: time.Now()})
	got := map[string]string{}
	for _, s := range l.Skills {
		got[s.ID+"/"+s.Name] = s.State
	}
	want := map[string]string{"beta/beta": Full, "alpha/alpha": Full, "gamma/": Absent, "off/": Absent, "only/only": Bare,
		"delta/delta": Full, "nested/deep/": Absent, "/shadowed": Full}
	if !maps.Equal(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
	if l.Budget != 8000 {
		t.Errorf("budget %d", l.Budget)
	}
	// Over a budget that holds only the built-ins' bundled lines, the
	// user's skills are bare names.
	l = Claude(ClaudeInput{Skills: skills, Folders: []string{user, project}, Conf: conf, Override: 4290, Now: time.Now()})
	if n := l.Count(Bare); n != 5 {
		t.Errorf("at 4290 characters: %d bare, want 5: %+v", n, l.Skills)
	}
	if names := l.Names(Bare); !slices.Equal(names, []string{"beta", "alpha", "only", "delta", "shadowed"}) {
		t.Errorf("bare names %v", names)
	}
	// With folders ski was given (SKI_ROOTS), a skill outside Claude
	// Code's own is not known to be absent; one the model may not invoke
	// still is.
	l = Claude(ClaudeInput{Skills: skills, Folders: []string{user, project}, Conf: conf, Given: true, Now: time.Now()})
	if got := l.Skills[6]; got.ID != "nested/deep" || got.State != "" {
		t.Errorf("given folders: %+v", got)
	}
	if got := l.Skills[2]; got.ID != "gamma" || got.State != Absent {
		t.Errorf("given folders: %+v", got)
	}
}

// TestClaudeCommands lists the commands beside the skill folders as
// Claude Code 2.1.197 did (checked with the real CLI): all of them sorted
// by name after the skills; a subfolder's as "dir:name"; a folder with a
// SKILL.md as one command; the description from the frontmatter (with
// when_to_use), else the first line (a heading's title, cut to 100), else
// "Custom command"; none the model may not invoke.
func TestClaudeCommands(t *testing.T) {
	home := t.TempDir()
	user := filepath.Join(home, ".claude", "skills")
	project := filepath.Join(home, "p", ".claude", "skills")
	files := map[string]string{
		".claude/commands/deploy.md":           "---\ndescription: Deploy the app\nwhen_to_use: after merging\n---\nRun it.\n",
		".claude/commands/sub/review-pr.md":    "# Review the pull request\n\nbody\n",
		".claude/commands/sub/deep/zap.md":     "\n\n   Zap the cache now\n",
		".claude/commands/long.md":             strings.Repeat("word ", 40) + "\n",
		".claude/commands/hidden.md":           "---\ndescription: Hidden\ndisable-model-invocation: true\n---\nx\n",
		".claude/commands/packaged/SKILL.md":   "---\nname: packaged\ndescription: A packaged command\n---\nx\n",
		".claude/commands/packaged/other.md":   "ignored\n",
		".claude/commands/empty.md":            "",
		"p/.claude/commands/proj-cmd.md":       "---\ndescription: Project command\n---\nx\n",
		".claude/skills/alpha/SKILL.md":        "---\nname: alpha\ndescription: Alpha things.\n---\nx\n",
		".claude/commands/notes.txt":           "not a command\n",
		"p/.claude/commands/sub/readme.mdx.md": "Readme\n",
	}
	for rel, text := range files {
		p := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	var got []string
	for _, c := range claudeCommands([]string{user, project}) {
		got = append(got, c.name+": "+c.description+cmdSuffix(c))
	}
	want := []string{
		"deploy: Deploy the app - after merging", "empty: Custom command", "hidden: Hidden (not for the model)",
		"long: " + strings.TrimSpace(strings.Repeat("word ", 20))[:97] + "...", "packaged: A packaged command",
		"proj-cmd: Project command", "sub:deep:zap: Zap the cache now", "sub:readme.mdx: Readme", "sub:review-pr: Review the pull request",
	}
	if !slices.Equal(got, want) {
		t.Errorf("commands:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	l := Claude(ClaudeInput{Folders: []string{user, project}, Now: time.Now()})
	if names := l.Names(Full); len(names) != 9 || slices.Contains(names, "hidden") {
		t.Errorf("listed: %v", names)
	}
}

func cmdSuffix(c listed) string {
	s := ""
	if c.whenToUse != "" {
		s += " - " + c.whenToUse
	}
	if c.noModel {
		s += " (not for the model)"
	}
	return s
}

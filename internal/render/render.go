// Package render turns each query's selections into the payload a host
// expects: Claude Code's hookSpecificOutput or the opencode plugin's
// {skills, suggest, inject}. Injected skills come as directives or bodies,
// suggested ones in one short line. Nothing selected gives no output at
// all. Skill text is copied as text: nothing in it is expanded or run.
package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/skill-inject/ski/internal/cut"
	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/record"
)

// Settings shape the injected text.
type Settings struct {
	Mode       string // "directive" or "body"
	Strength   string // "soft", "hard" or "auto"
	CharBudget int    // total characters of skill bodies in body mode
	Notify     bool   // add a one-line notice for the person (Claude)
}

// Options configure a run.
type Options struct {
	Host     string
	Settings func(cwd string) (Settings, error)
	// ReadBody returns a skill's body (its SKILL.md without frontmatter) and
	// the files bundled beside it.
	ReadBody func(path, dir string) (body string, files []string, err error)
	// Describe returns the description of the skill at path ("" when it
	// cannot be read), for the skills the host lists by name alone; nil:
	// none is added.
	Describe func(path string) string
	MaxLine  int
}

// MaxBrief is the longest description, in characters, a directive or the
// suggestion line adds for a skill the host's listing shows as a bare
// name.
const MaxBrief = 150

// Run reads selection records and writes one payload per query that has
// something to inject or suggest.
func Run(o Options, in io.Reader, out io.Writer) error {
	r := ndjson.NewReader(in, "<stdin>", o.MaxLine)
	w := ndjson.NewWriter(out)
	err := record.EachQuery(r, record.KindSelection, "ski-select", func(group []record.Selection) error {
		payload, err := o.payload(group)
		if err != nil || payload == nil {
			return err
		}
		return w.Encode(payload)
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

// ClaudePayload is Claude Code's UserPromptSubmit hook output.
type ClaudePayload struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// OpencodePayload is what the opencode plugin reads: the ids of the
// injected and of the suggested skills, and the text for the model (the
// directives or bodies, then the suggestion line).
type OpencodePayload struct {
	Skills  []string `json:"skills"`
	Suggest []string `json:"suggest"`
	Inject  string   `json:"inject"`
}

// split returns the injected and the suggested selections of a query.
func split(group []record.Selection) (inject, suggest []record.Selection) {
	for _, s := range group {
		switch s.Decision {
		case record.DecisionInject:
			inject = append(inject, s)
		case record.DecisionSuggest:
			suggest = append(suggest, s)
		}
	}
	return inject, suggest
}

// composed is what a query's selections make: the injected and the
// suggested ones, the settings in force and the text for the model.
type composed struct {
	inject, suggest []record.Selection
	set             Settings
	text            string // "": nothing to say
}

func (o Options) compose(group []record.Selection) (composed, error) {
	var c composed
	c.inject, c.suggest = split(group)
	if len(c.inject) == 0 && len(c.suggest) == 0 {
		return c, nil
	}
	var err error
	if c.set, err = o.Settings(group[0].Cwd); err != nil {
		return c, err
	}
	c.text, err = o.text(c.inject, c.suggest, c.set)
	return c, err
}

// Context returns the text a query's selections put before the model ("" for
// none): what the payload carries and what it costs the prompt.
func (o Options) Context(group []record.Selection) (string, error) {
	c, err := o.compose(group)
	return c.text, err
}

func (o Options) payload(group []record.Selection) (any, error) {
	c, err := o.compose(group)
	if err != nil || c.text == "" {
		return nil, err
	}
	if o.Host == record.HostOpencode {
		return OpencodePayload{Skills: ids(c.inject), Suggest: ids(c.suggest), Inject: c.text}, nil
	}
	var p ClaudePayload
	p.HookSpecificOutput.HookEventName = "UserPromptSubmit"
	p.HookSpecificOutput.AdditionalContext = c.text
	if c.set.Notify {
		p.SystemMessage = notice(c.inject, c.suggest)
	}
	return p, nil
}

func ids(sels []record.Selection) []string {
	out := make([]string, len(sels))
	for i, s := range sels {
		out[i] = s.ID
	}
	return out
}

// notice is the one line for the person: "ski: injected a, b; suggested c".
func notice(inject, suggest []record.Selection) string {
	var parts []string
	for _, group := range []struct {
		verb string
		sels []record.Selection
	}{{"injected", inject}, {"suggested", suggest}} {
		if len(group.sels) == 0 {
			continue
		}
		names := make([]string, len(group.sels))
		for i, s := range group.sels {
			names[i] = s.Name
		}
		parts = append(parts, group.verb+" "+strings.Join(names, ", "))
	}
	return "ski: " + strings.Join(parts, "; ")
}

func (o Options) text(inject, suggest []record.Selection, set Settings) (string, error) {
	var b strings.Builder
	if set.Mode == "body" {
		if err := o.bodies(&b, inject, set.CharBudget); err != nil {
			return "", err
		}
	} else {
		// A skill the model may not invoke (disable-model-invocation) only
		// gets here when the user named it: a directive to load it with the
		// Skill tool would ask for what the host refuses, so it comes as
		// its body; and so does one the host does not list at all, which
		// its skill tool does not know.
		var bodies []record.Selection
		for _, s := range inject {
			if s.DisableModelInvocation || s.Shown == "absent" {
				bodies = append(bodies, s)
				continue
			}
			b.WriteString(o.directive(s, set.Strength))
			b.WriteString(o.brief(s, " "))
			b.WriteString("\n")
		}
		if err := o.bodies(&b, bodies, set.CharBudget); err != nil {
			return "", err
		}
	}
	if len(suggest) > 0 {
		b.WriteString(o.suggestLine(suggest))
		for _, s := range suggest {
			b.WriteString(o.brief(s, "\n- "))
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// brief is what the model is told of a skill its skill listing does not
// describe, after sep: for a bare name its description, cut to MaxBrief;
// for a skill not listed at all, also where to read it. "" for the rest.
func (o Options) brief(s record.Selection, sep string) string {
	if (s.Shown != "bare" && s.Shown != "absent") || o.Describe == nil {
		return ""
	}
	desc := cut.Short(o.Describe(s.Path), MaxBrief)
	if s.Shown == "absent" {
		return fmt.Sprintf("%s%q is not in the %s tool's list: read %s to load it. %s", sep, s.Invoke, o.tool(), s.Path, desc)
	}
	if desc == "" {
		return ""
	}
	return fmt.Sprintf("%s%q (your skill list shows its name only): %s", sep, s.Invoke, desc)
}

// MaxSuggestLine is the longest suggestion line, in characters.
const MaxSuggestLine = 300

// suggestLine names the suggested skills by what the host's skill tool
// takes, in one line of at most MaxSuggestLine characters: when the names
// do not fit, the longest are shortened first, each marked with "…".
func (o Options) suggestLine(suggest []record.Selection) string {
	names := make([]string, len(suggest))
	longest := 0
	for i, s := range suggest {
		names[i] = s.Invoke
		longest = max(longest, charCount(s.Invoke))
	}
	line := func(limit int) string {
		quoted := make([]string, len(names))
		for i, n := range names {
			if charCount(n) > limit {
				n = cut.Runes(n, max(limit-1, 1)) + "…"
			}
			quoted[i] = strconv.Quote(n)
		}
		return fmt.Sprintf("ski: skills that may help, not loaded: %s. If one fits the task, load it with the %s tool before you start.",
			strings.Join(quoted, ", "), o.tool())
	}
	for limit := min(longest, MaxSuggestLine); ; limit-- {
		l := line(limit)
		if charCount(l) <= MaxSuggestLine {
			return l
		}
		if limit <= 2 {
			// More names than one line holds (max_suggestions keeps them few).
			return cut.Runes(l, MaxSuggestLine-1) + "…"
		}
	}
}

func (o Options) tool() string {
	if o.Host == record.HostOpencode {
		return "skill"
	}
	return "Skill"
}

func (o Options) strength(s string) string {
	if s == "soft" || s == "hard" {
		return s
	}
	if o.Host == record.HostOpencode {
		return "hard"
	}
	return "soft"
}

func (o Options) directive(s record.Selection, strength string) string {
	arg := "skill"
	if o.Host == record.HostOpencode {
		arg = "name"
	}
	call := fmt.Sprintf("the %s tool (%s: %q)", o.tool(), arg, s.Invoke)
	if o.strength(strength) == "hard" {
		return fmt.Sprintf("ski: before doing anything else you MUST load the skill %q with %s and follow it (file: %s).", s.Name, call, s.Path)
	}
	return fmt.Sprintf("ski: the skill %q matches this request. If it applies, load it with %s before you start (file: %s).", s.Name, call, s.Path)
}

// bodies writes each skill's body under one shared character budget.
func (o Options) bodies(b *strings.Builder, inject []record.Selection, budget int) error {
	left := budget
	for _, s := range inject {
		body, files, err := o.ReadBody(s.Path, s.Dir)
		if err != nil {
			return fmt.Errorf("skill %s: %w", s.ID, err)
		}
		left -= SkillBody(b, Skill{Name: s.Name, Path: s.Path, Dir: s.Dir, Body: body, Files: files}, left)
	}
	return nil
}

// Skill is a skill's text as it goes before the model.
type Skill struct {
	Name, Path, Dir string
	Body            string   // the SKILL.md without frontmatter
	Files           []string // bundled files, relative to Dir
}

// SkillBody writes s as a <skill> block: its base directory, its bundled
// files and its body, the body cut to budget characters (with a note
// saying where the rest is). It returns the characters of body written.
func SkillBody(b *strings.Builder, s Skill, budget int) int {
	fmt.Fprintf(b, "<skill name=\"%s\" path=\"%s\">\n", xmlAttr.Replace(s.Name), xmlAttr.Replace(s.Path))
	fmt.Fprintf(b, "Base directory for this skill: %s\n", s.Dir)
	if len(s.Files) > 0 {
		fmt.Fprintf(b, "Bundled files (relative to the base directory): %s\n", strings.Join(s.Files, ", "))
	}
	b.WriteString("\n")
	body := strings.TrimSpace(s.Body)
	if n := charCount(body); n > budget {
		kept := cut.Runes(body, max(budget, 0))
		body = kept + fmt.Sprintf("\n[… truncated by ski: %d of %d characters shown; read %s for the rest]", charCount(kept), n, s.Path)
	}
	b.WriteString(body)
	b.WriteString("\n</skill>\n")
	return charCount(body)
}

func charCount(s string) int { return len([]rune(s)) }

// xmlAttr escapes a value for a double-quoted XML attribute.
var xmlAttr = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;",
	"\n", "&#10;", "\r", "&#13;", "\t", "&#9;")

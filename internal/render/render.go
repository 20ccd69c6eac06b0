// Package render turns each query's selections into the payload a host
// expects: Claude Code's hookSpecificOutput or the opencode plugin's
// {skills, inject}. Nothing selected gives no output at all. Skill text is
// copied as text: nothing in it is expanded or run.
package render

import (
	"fmt"
	"io"
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
	MaxLine  int
}

// Run reads selection records and writes one payload per query that has
// something to inject or recommend.
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

// OpencodePayload is what the opencode plugin reads.
type OpencodePayload struct {
	Skills []string `json:"skills"`
	Inject string   `json:"inject"`
}

func (o Options) payload(group []record.Selection) (any, error) {
	var inject, recommend []record.Selection
	for _, s := range group {
		switch s.Decision {
		case record.DecisionInject:
			inject = append(inject, s)
		case record.DecisionRecommend:
			recommend = append(recommend, s)
		}
	}
	if len(inject) == 0 && len(recommend) == 0 {
		return nil, nil
	}
	set, err := o.Settings(group[0].Cwd)
	if err != nil {
		return nil, err
	}
	text, err := o.text(inject, recommend, set)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(inject))
	names := make([]string, len(inject))
	for i, s := range inject {
		ids[i], names[i] = s.ID, s.Name
	}
	if o.Host == record.HostOpencode {
		return OpencodePayload{Skills: ids, Inject: text}, nil
	}
	var p ClaudePayload
	p.HookSpecificOutput.HookEventName = "UserPromptSubmit"
	p.HookSpecificOutput.AdditionalContext = text
	if set.Notify && len(names) > 0 {
		p.SystemMessage = "ski: injected " + strings.Join(names, ", ")
	}
	return p, nil
}

func (o Options) text(inject, recommend []record.Selection, set Settings) (string, error) {
	var b strings.Builder
	if set.Mode == "body" {
		if err := o.bodies(&b, inject, set.CharBudget); err != nil {
			return "", err
		}
	} else {
		// A skill the model may not invoke (disable-model-invocation) only
		// gets here when the user named it: a directive to load it with the
		// Skill tool would ask for what the host refuses, so it comes as
		// its body.
		var bodies []record.Selection
		for _, s := range inject {
			if s.DisableModelInvocation {
				bodies = append(bodies, s)
				continue
			}
			b.WriteString(o.directive(s, set.Strength))
			b.WriteString("\n")
		}
		if err := o.bodies(&b, bodies, set.CharBudget); err != nil {
			return "", err
		}
	}
	if len(recommend) > 0 {
		quoted := make([]string, len(recommend))
		for i, s := range recommend {
			quoted[i] = fmt.Sprintf("%q", s.Invoke)
		}
		fmt.Fprintf(&b, "ski: possibly relevant skill(s), not loaded: %s. Load one with the %s tool only if it fits the task.\n",
			strings.Join(quoted, ", "), o.tool())
	}
	return strings.TrimRight(b.String(), "\n"), nil
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
		fmt.Fprintf(b, "<skill name=\"%s\" path=\"%s\">\n", xmlAttr.Replace(s.Name), xmlAttr.Replace(s.Path))
		fmt.Fprintf(b, "Base directory for this skill: %s\n", s.Dir)
		if len(files) > 0 {
			fmt.Fprintf(b, "Bundled files (relative to the base directory): %s\n", strings.Join(files, ", "))
		}
		b.WriteString("\n")
		body = strings.TrimSpace(body)
		if n := charCount(body); n > left {
			kept := cut.Runes(body, max(left, 0))
			body = kept + fmt.Sprintf("\n[… truncated by ski: %d of %d characters shown; read %s for the rest]", charCount(kept), n, s.Path)
		}
		left -= charCount(body)
		b.WriteString(body)
		b.WriteString("\n</skill>\n")
	}
	return nil
}

func charCount(s string) int { return len([]rune(s)) }

// xmlAttr escapes a value for a double-quoted XML attribute.
var xmlAttr = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;",
	"\n", "&#10;", "\r", "&#13;", "\t", "&#9;")

package index

import (
	"strings"

	"github.com/skill-inject/ski/internal/bm25"
	"github.com/skill-inject/ski/internal/cut"
	"github.com/skill-inject/ski/internal/indexfile"
	"github.com/skill-inject/ski/internal/lazyre"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/skill"
	"github.com/skill-inject/ski/internal/vecfile"
)

// TextRules names the rules of DocumentText. Change it whenever they
// change, so that indexes built under the old rules are re-embedded.
const TextRules = "name-description-keywords-when.v1+stem+body"

// maxWhenChars bounds the "when to use" section taken from a skill's body.
const maxWhenChars = 800

// DocumentText is the text that stands for a skill when it is embedded and
// scored lexically: its name, description, keywords, aliases and tags, and
// the section of its body that says when to use it, if it has one. body is
// the SKILL.md without frontmatter ("" when unknown).
func DocumentText(s record.Skill, body string) string {
	var b strings.Builder
	b.WriteString(strings.NewReplacer("-", " ", "_", " ").Replace(s.Name))
	b.WriteString(": ")
	b.WriteString(s.Description)
	if extra := append(append(append([]string{}, s.Keywords...), s.Aliases...), s.Tags...); len(extra) > 0 {
		b.WriteString(" (")
		b.WriteString(strings.Join(extra, ", "))
		b.WriteString(")")
	}
	if when := WhenSection(body); when != "" {
		b.WriteString(" ")
		b.WriteString(when)
	}
	return b.String()
}

var (
	headingRe = lazyre.New(`^(#{1,6})\s+(.*)`)
	// whenRe matches the headings skill authors give the section that says
	// when a skill applies.
	whenRe = lazyre.New(`(?i)when to (use|apply|invoke)|use this skill|use when|triggers?\b|use cases?`)
)

// WhenSection returns the body of the first-level-or-deeper sections whose
// heading says when to use the skill ("When to Use This Skill", "Use
// cases", "Triggers"), whitespace collapsed, cut to maxWhenChars.
func WhenSection(body string) string {
	var out []string
	on, level := false, 0
	for _, line := range strings.Split(body, "\n") {
		if m := headingRe.FindStringSubmatch(line); m != nil {
			if on && len(m[1]) <= level {
				on = false
			}
			if !on && whenRe.MatchString(m[2]) {
				on, level = true, len(m[1])
				continue
			}
		}
		if on {
			out = append(out, line)
		}
	}
	text := strings.Join(strings.Fields(strings.Join(out, " ")), " ")
	return cut.Runes(text, maxWhenChars)
}

// BodyTerms counts the terms of a skill's body for the body field of the
// index: its prose and headings, without fenced code, whose identifiers
// and commands would match prompts by accident.
func BodyTerms(body string) map[string]int {
	return bm25.Terms(cut.Fences(body))
}

// ReadBody returns the SKILL.md at path without its frontmatter, or "" when
// it cannot be read: the skill is then indexed by its frontmatter alone.
func ReadBody(path string) string { return readBody(path) }

func readBody(path string) string {
	if path == "" {
		return ""
	}
	body, err := skill.ReadBody(path)
	if err != nil {
		return ""
	}
	return body
}

// ReaderTexts returns, by skill id, the text the reader reads of each skill
// of the index at path: DocumentText without the body, from the records the
// index keeps (no skill file is read).
func ReaderTexts(path string) (map[string]string, error) {
	skills, err := vecfile.ReadSkills(path, indexfile.Zstd{})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(skills))
	for _, s := range skills {
		out[s.ID] = DocumentText(s, "")
	}
	return out, nil
}

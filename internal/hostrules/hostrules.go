// Package hostrules checks skills against the frontmatter rules each host
// documents: a skill that breaks one may be refused or cut short by the
// host even though ski can rank it, so ski reports it instead of keeping
// quiet.
package hostrules

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/skill-inject/ski/internal/record"
)

// Documented limits, the same for Claude Code and opencode.
const (
	MaxName        = 64
	MaxDescription = 1024
)

// Check returns the rules of host that skill s breaks. Both hosts want a
// name of at most 64 lowercase letters, digits and hyphens and a
// description of at most 1024 characters without angle brackets; Claude
// Code reserves "claude" and "anthropic" in names; opencode wants single
// hyphens between words and the name to be the folder's.
func Check(host string, s record.Skill) []record.Warning {
	var reasons []string
	name := s.Name
	switch {
	case utf8.RuneCountInString(name) > MaxName:
		reasons = append(reasons, fmt.Sprintf("name is %d characters; the host allows %d", utf8.RuneCountInString(name), MaxName))
	case !lowerDigitsHyphens(name):
		reasons = append(reasons, fmt.Sprintf("name %q: the host allows only lowercase letters, digits and hyphens", name))
	}
	if n := utf8.RuneCountInString(s.Description); n > MaxDescription {
		reasons = append(reasons, fmt.Sprintf("description is %d characters; the host allows %d and cuts or refuses longer ones", n, MaxDescription))
	}
	if strings.ContainsAny(s.Description, "<>") {
		reasons = append(reasons, "description contains < or >, which the host does not allow in frontmatter")
	}
	switch host {
	case record.HostClaude:
		for _, w := range []string{"claude", "anthropic"} {
			if strings.Contains(strings.ToLower(name), w) {
				reasons = append(reasons, fmt.Sprintf("name %q contains the reserved word %q", name, w))
			}
		}
	case record.HostOpencode:
		if lowerDigitsHyphens(name) && (strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") || strings.Contains(name, "--")) {
			reasons = append(reasons, fmt.Sprintf("name %q: opencode wants words joined by single hyphens", name))
		}
		if dir := filepath.Base(s.Dir); s.Dir != "" && dir != name {
			reasons = append(reasons, fmt.Sprintf("name %q differs from its folder %q, which opencode requires to match", name, dir))
		}
	}
	out := make([]record.Warning, len(reasons))
	for i, r := range reasons {
		out[i] = record.Warning{Kind: record.KindWarning, Path: s.Path, ID: s.ID, Host: host, Reason: r}
	}
	return out
}

// CheckAll checks every skill.
func CheckAll(host string, skills []record.Skill) []record.Warning {
	var out []record.Warning
	for _, s := range skills {
		out = append(out, Check(host, s)...)
	}
	return out
}

func lowerDigitsHyphens(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

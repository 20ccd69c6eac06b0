// Package mention finds skills a prompt names explicitly: "/name" at the
// start (the host invokes it), "@name", "$name", "use the NAME skill",
// "invoke NAME", or a distinctive multi-part name on its own. Names inside
// e-mail addresses, URLs and paths do not count, nor do bare names after a
// leading "/name", "@name" or "$name": they are its arguments.
package mention

import (
	"strings"

	"github.com/skill-inject/ski/internal/lazyre"
	"github.com/skill-inject/ski/internal/prompt"
	"github.com/skill-inject/ski/internal/record"
)

// How a prompt named a skill.
const (
	Slash  = "slash"  // "/name" at the start: the host loads it itself
	At     = "at"     // "@name"
	Dollar = "dollar" // "$name"
	Phrase = "phrase" // "use the name skill", "invoke name-x"
	Name   = "name"   // a multi-part name such as a-b-c on its own
)

// Found is one mention: the matched name (as record.NameKey) and how.
type Found struct {
	Name string
	How  string
}

// Known is the names skills can be mentioned by, each as record.NameKey.
type Known interface {
	Has(name string) bool
}

// Names is a set of names skills can be mentioned by, each as record.NameKey.
type Names map[string]bool

// Has reports whether name is in the set.
func (n Names) Has(name string) bool { return n[name] }

var (
	nameChars = `[a-z0-9][a-z0-9_.:-]*[a-z0-9]|[a-z0-9]`
	markRe    = lazyre.New(`[@$](` + nameChars + `)`)
	verbRe    = lazyre.New(`\b(?:use|using|run|invoke|apply|load|follow|try)\s+(?:the\s+|your\s+|our\s+)?(` + nameChars + `)(\s+skill\b)?`)
	skillRe   = lazyre.New(`\b(` + nameChars + `)\s+skill\b`)
	wordRe    = lazyre.New(nameChars)
)

// Prepare compiles the patterns Find uses: a stage runs it while its input
// is on the way.
func Prepare() {
	lazyre.Compile(markRe, verbRe, skillRe, wordRe)
	prompt.PrepareSlash()
}

// Find returns the mentions of known names in p, at most one per name, the
// strongest kind first when a name is mentioned twice.
func Find(p string, known Known) []Found {
	var out []Found
	seen := map[string]bool{}
	add := func(name, how string) {
		name = record.NameKey(name)
		if !seen[name] && known.Has(name) {
			seen[name] = true
			out = append(out, Found{Name: name, How: how})
		}
	}
	if name, _, ok := prompt.Slash(p); ok {
		add(name, Slash)
	}
	low := strings.ToLower(p)
	for _, m := range markRe.FindAllStringSubmatchIndex(low, -1) {
		if !standsAlone(low, m[0], m[1]) {
			continue
		}
		how := At
		if low[m[0]] == '$' {
			how = Dollar
		}
		add(low[m[2]:m[3]], how)
	}
	for _, m := range verbRe.FindAllStringSubmatchIndex(low, -1) {
		name := low[m[2]:m[3]]
		said := m[4] >= 0 || strings.Contains(name, "-")
		if said && standsAlone(low, m[2], m[3]) {
			add(name, Phrase)
		}
	}
	for _, m := range skillRe.FindAllStringSubmatchIndex(low, -1) {
		if standsAlone(low, m[2], m[3]) {
			add(low[m[2]:m[3]], Phrase)
		}
	}
	// After a leading invocation ("$installer gh-fix-ci", "/review
	// pr-writer"), bare names are that skill's arguments, not mentions.
	if startsWithInvocation(low, out) {
		return out
	}
	for _, m := range wordRe.FindAllStringIndex(low, -1) {
		word := low[m[0]:m[1]]
		if strings.Count(word, "-") >= 2 && standsAlone(low, m[0], m[1]) {
			add(word, Name)
		}
	}
	return out
}

// startsWithInvocation reports whether prompt p (lower case) opens with
// "/name", "@name" or "$name" of a skill found among the mentions.
func startsWithInvocation(p string, found []Found) bool {
	t := strings.TrimSpace(p)
	if t == "" || !strings.ContainsRune("/@$", rune(t[0])) {
		return false
	}
	first := wordRe.FindString(t[1:])
	for _, f := range found {
		if f.Name == record.NameKey(first) && f.How != Name {
			return true
		}
	}
	return false
}

// standsAlone reports whether s[i:j] (the name, or the name with its @ or $
// mark) is a word of its own rather than part of an address, URL or path.
func standsAlone(s string, i, j int) bool {
	if i > 0 {
		switch c := s[i-1]; {
		case isWordByte(c), c == '/', c == '.', c == '@', c == '$', c == '\\', c == '~', c == '=':
			return false
		}
	}
	if j < len(s) {
		c := s[j]
		switch {
		case isWordByte(c), c == '/', c == '\\', c == '@':
			return false
		case c == '.' && j+1 < len(s) && isWordByte(s[j+1]):
			return false // a file name such as name.md or a host name
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

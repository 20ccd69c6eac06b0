// Package prompt decides whether a prompt is the user's own words and turns
// it into the text that is embedded: host control messages are skipped, and
// pasted code, logs and stack traces are cut down to the words that say what
// the user wants.
package prompt

import (
	"github.com/skill-inject/ski/internal/cut"
	"github.com/skill-inject/ski/internal/intent"
	"github.com/skill-inject/ski/internal/lazyre"
	"strings"
	"unicode/utf8"
)

// MaxQueryChars bounds the cleaned text; models read a few hundred tokens.
const MaxQueryChars = 2000

// controlPrefixes start prompts that the host writes, not the user: task
// and system notices, slash-command echoes, and the input and output of
// commands the user ran with "!" (Claude Code's bash mode).
var controlPrefixes = []string{
	"<task-notification>", "<system-reminder>",
	"<command-name>", "<command-message>", "<command-args>",
	"<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>",
}

// IsControl reports whether p is empty or a host control payload.
func IsControl(p string) bool {
	t := strings.TrimSpace(p)
	if t == "" {
		return true
	}
	for _, c := range controlPrefixes {
		if strings.HasPrefix(t, c) {
			return true
		}
	}
	return false
}

var slashRe = lazyre.New(`^/([A-Za-z0-9][A-Za-z0-9._:-]*)(?:\s+|$)`)

// PrepareSlash compiles the pattern Slash uses (see lazyre.Compile).
func PrepareSlash() { lazyre.Compile(slashRe) }

// Slash splits a prompt that starts with a "/name" command into the name
// and the rest of the prompt. ok is false when it does not start so.
func Slash(p string) (name, rest string, ok bool) {
	t := strings.TrimSpace(p)
	m := slashRe.FindStringSubmatchIndex(t)
	if m == nil {
		return "", p, false
	}
	return t[m[2]:m[3]], strings.TrimSpace(t[m[1]:]), true
}

var (
	// noiseLine matches lines of logs and stack traces.
	noiseLine = lazyre.New(`^\s*(at\s+[\w$.<>]+\(|File ".*", line \d+|\S+\.(go|py|js|ts|java|rs|rb|c|cc|cpp):\d+|goroutine \d+|Traceback \(most recent call last\)|\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\[\d{2}:\d{2}:\d{2}|#\d+\s+0x[0-9a-f]+)`)
)

// Reading is what ski reads from a prompt's words: the kind of request it
// makes and the text embedded and matched for it.
type Reading struct {
	Text   string      `json:"text"`
	Intent intent.Kind `json:"intent"`
}

// Read reads prompt p: its intent (intent.Of) and its QueryText.
func Read(p string) Reading {
	k := intent.Of(p)
	return Reading{Text: intent.Expand(cleanText(p), k), Intent: k}
}

// QueryText is the text to embed for prompt p: without a leading /command,
// fenced code blocks or log and trace lines, trimmed to MaxQueryChars, and
// with the hint of its intent (intent.Expand).
func QueryText(p string) string {
	return Read(p).Text
}

// cleanText is p without a leading /command, fenced code blocks or log and
// trace lines, trimmed to MaxQueryChars.
func cleanText(p string) string {
	if _, rest, ok := Slash(p); ok {
		p = rest
	}
	p = cut.Fences(p)
	var kept []string
	for _, line := range strings.Split(p, "\n") {
		if noiseLine.MatchString(line) {
			continue
		}
		if line = strings.TrimSpace(line); line != "" {
			kept = append(kept, line)
		}
	}
	return Truncate(strings.Join(kept, "\n"), MaxQueryChars)
}

// Truncate cuts s to at most n bytes without splitting a UTF-8 sequence.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

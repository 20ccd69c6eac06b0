// Package intent reads from a prompt's wording what kind of request it is,
// where that changes which skill fits: a bug hunt (something fails and the
// user wants it found or fixed) calls for a debugging method whatever else
// the prompt names, and a small edit or a plain explanation ("just rename",
// "fix the typo", "what does X do") rarely calls for any skill at all.
package intent

import (
	"strings"

	"github.com/skill-inject/ski/internal/lazyre"
)

// Kind is what a prompt asks for; the zero value means nothing in particular.
type Kind string

// The kinds of request that ski treats apart.
const (
	None      Kind = ""
	BugHunt   Kind = "bug-hunt"
	SmallEdit Kind = "small-edit"
)

// BugHuntHint is added to the text of a bug-hunt prompt before it is
// embedded and matched, so that skills about finding causes rank with the
// ones the prompt names in passing.
const BugHuntHint = "Debug this failure: find the root cause of the error."

var (
	// failure: the prompt reports that something goes wrong.
	failure = lazyre.New(`(?i)\b(errors?|exceptions?|panic(s|ked|king)?|crash(es|ed|ing)?|traceback|stack ?trace|segfault|fail(s|ed|ing|ure|ures)?|nan|undefined is not|null pointer|nil (map|pointer)|refused|timed? ?out|hangs?|hanging|flaky|intermittent(ly)?|only sometimes|regression|leak(s|ing)?|infinite loop|forever|(doesn't|does not|isn't|is not|won't|stopped|not) work(ing|s)?|broke(n)?|wrong (result|value|output|answer)s?|off by one)\b`)
	// seeking: the prompt asks for the cause or a fix.
	seeking = lazyre.New(`(?i)\b(why|cause[sd]?|root cause|find out|figure out|debug(ging)?|investigate|diagnose|what'?s (going on|wrong|happening)|fix(es|ed|ing)?|here'?s the (log|trace|error|output|stack))\b`)
	// trace: pasted log or stack-trace lines.
	trace = lazyre.New(`(?m)^\s*(at\s+[\w$.<>]+\(|File ".*", line \d+|goroutine \d+|Traceback \(most recent call last\)|panic: |Error: |[A-Z]\w*(Error|Exception)\b)`)
	// small: a rename, a spelling or formatting fix, a one-line change, or
	// a request only to explain.
	small = lazyre.New(`(?i)\b(typos?|spelling|misspell\w*|reformat|indentation|whitespace|one-liner|nothing else)\b` +
		`|\brename\b[^.?!\n]{0,60}\bto\b` +
		`|\bjust (explain|rename|change|tweak|bump|fix the (typo|link|name|spelling|import|label|comment))\b` +
		`|\bexplain what\b.{0,80}\b(does|do|means?)\b|\bwhat (does|do)\b.{0,80}\b(do|does|mean)\b` +
		`|\bfix (the|a) (broken )?link\b` +
		`|\bchange the (colou?r|text|font|label|wording|title|size|padding|margin|spacing|icon)\b`)
	// brokenLink is a broken link: a small fix, not a failure to hunt down.
	brokenLink = lazyre.New(`(?i)\bbroken (hyper)?links?\b`)
)

// Of returns the kind of request prompt p makes. A bug hunt wins over a
// small edit: "just fix the failing test" is a bug hunt.
func Of(p string) Kind {
	if (failure.MatchString(brokenLink.ReplaceAllString(p, "")) && seeking.MatchString(p)) || trace.MatchString(p) {
		return BugHunt
	}
	if small.MatchString(p) {
		return SmallEdit
	}
	return None
}

// Concept returns the text that stands for what a prompt of kind k needs,
// "" for none: ranking boosts the skills closest to it.
func Concept(k Kind) string {
	if k == BugHunt {
		return BugHuntHint
	}
	return ""
}

// Expand returns the text to embed and match for a prompt of kind k: a bug
// hunt gains BugHuntHint, anything else is returned unchanged.
func Expand(text string, k Kind) string {
	if k != BugHunt {
		return text
	}
	return strings.TrimSpace(text + "\n" + BugHuntHint)
}

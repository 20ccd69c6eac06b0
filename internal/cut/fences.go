package cut

import "github.com/skill-inject/ski/internal/lazyre"

// fenceRe matches a fenced code block; an unclosed one runs to the end.
var fenceRe = lazyre.New("(?s)```.*?(```|$)")

// Fences replaces every fenced code block of markdown text s with a space.
func Fences(s string) string {
	return fenceRe.ReplaceAllString(s, " ")
}

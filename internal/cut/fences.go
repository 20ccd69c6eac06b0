package cut

import "regexp"

// fenceRe matches a fenced code block; an unclosed one runs to the end.
var fenceRe = regexp.MustCompile("(?s)```.*?(```|$)")

// Fences replaces every fenced code block of markdown text s with a space.
func Fences(s string) string {
	return fenceRe.ReplaceAllString(s, " ")
}

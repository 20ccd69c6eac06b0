// Package cut shortens text: to a number of characters without splitting
// one, or by its fenced code blocks.
package cut

import "strings"

// Runes returns the first n characters (runes) of s, or s when it is
// shorter; the bytes kept are s's own.
func Runes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// Short is s with its white space collapsed, cut to at most n characters
// with "…" at the end when it was cut.
func Short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimRight(string(r[:n-1]), " ,;:.") + "…"
}

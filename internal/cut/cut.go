// Package cut shortens text: to a number of characters without splitting
// one, or by its fenced code blocks.
package cut

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

package listing

import "strings"

// punctuation is the order the Unicode root collation gives ASCII
// punctuation and symbols; all of them come before digits, and digits
// before letters.
const punctuation = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"

// Compare orders two skill names as JavaScript's localeCompare does in
// Claude Code (the Unicode root collation): letters compare without case
// first, punctuation before digits before letters, then lower case before
// upper. Characters outside ASCII follow the letters, by code point. It
// returns -1, 0 or +1.
func Compare(a, b string) int {
	if c := compareKeys(a, b, true); c != 0 {
		return c
	}
	return compareKeys(a, b, false)
}

func compareKeys(a, b string, primary bool) int {
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < len(ra) && i < len(rb); i++ {
		ka, kb := key(ra[i], primary), key(rb[i], primary)
		if ka != kb {
			if ka < kb {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(ra) < len(rb):
		return -1
	case len(ra) > len(rb):
		return 1
	}
	return 0
}

// key is r's weight: at the primary level case is ignored; past it, a
// lower-case letter weighs less than its capital.
func key(r rune, primary bool) int {
	switch {
	case r >= 'A' && r <= 'Z':
		if primary {
			return 200 + int(r-'A')*2
		}
		return 200 + int(r-'A')*2 + 1
	case r >= 'a' && r <= 'z':
		return 200 + int(r-'a')*2
	case r >= '0' && r <= '9':
		return 100 + int(r-'0')
	case r < 0x80:
		if i := strings.IndexRune(punctuation, r); i >= 0 {
			return i
		}
		return 90 // a control character
	}
	return 1000 + int(r)
}

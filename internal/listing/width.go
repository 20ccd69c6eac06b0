package listing

import (
	"unicode"
	"unicode/utf16"
)

// Width is the number of terminal columns s takes, as Claude Code counts
// its skill listing (Bun's stringWidth with ambiguous characters narrow):
// control characters, combining marks and format characters take none,
// East Asian wide and full-width characters and emoji take two, the rest
// one. Measured against 2.1.197 for newlines, tabs, dashes, accents,
// combining accents, CJK and emoji; emoji sequences joined into one
// picture are counted per character here.
func Width(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r < 0x20 || r >= 0x7f && r < 0xa0:
		case r < 0x7f:
			n++
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		case wide(r):
			n += 2
		default:
			n++
		}
	}
	return n
}

// wideRanges are the East Asian wide and full-width blocks and the emoji
// shown as pictures by default, first and last rune of each.
var wideRanges = [][2]rune{
	{0x1100, 0x115f}, {0x231a, 0x231b}, {0x2329, 0x232a}, {0x23e9, 0x23ec}, {0x23f0, 0x23f0},
	{0x23f3, 0x23f3}, {0x25fd, 0x25fe}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267f, 0x267f},
	{0x2693, 0x2693}, {0x26a1, 0x26a1}, {0x26aa, 0x26ab}, {0x26bd, 0x26be}, {0x26c4, 0x26c5},
	{0x26ce, 0x26ce}, {0x26d4, 0x26d4}, {0x26ea, 0x26ea}, {0x26f2, 0x26f3}, {0x26f5, 0x26f5},
	{0x26fa, 0x26fa}, {0x26fd, 0x26fd}, {0x2705, 0x2705}, {0x270a, 0x270b}, {0x2728, 0x2728},
	{0x274c, 0x274c}, {0x274e, 0x274e}, {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797},
	{0x27b0, 0x27b0}, {0x27bf, 0x27bf}, {0x2b1b, 0x2b1c}, {0x2b50, 0x2b50}, {0x2b55, 0x2b55},
	{0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff}, {0xa000, 0xa4cf},
	{0xa960, 0xa97f}, {0xac00, 0xd7a3}, {0xf900, 0xfaff}, {0xfe10, 0xfe19}, {0xfe30, 0xfe6f},
	{0xff00, 0xff60}, {0xffe0, 0xffe6}, {0x16fe0, 0x16fe4}, {0x17000, 0x18aff}, {0x1b000, 0x1b2ff},
	{0x1f004, 0x1f004}, {0x1f0cf, 0x1f0cf}, {0x1f18e, 0x1f18e}, {0x1f191, 0x1f19a}, {0x1f200, 0x1f251},
	{0x1f300, 0x1f64f}, {0x1f680, 0x1f6ff}, {0x1f7e0, 0x1f7eb}, {0x1f90c, 0x1f9ff}, {0x1fa70, 0x1faff},
	{0x20000, 0x3fffd},
}

func wide(r rune) bool {
	for _, w := range wideRanges {
		if r < w[0] {
			return false
		}
		if r <= w[1] {
			return true
		}
	}
	return false
}

// utf16Len is the length of s as JavaScript counts it (UTF-16 code units).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// cutUTF16 cuts s after its first n UTF-16 code units, as JavaScript's
// slice does; a surrogate pair it would split is dropped whole.
func cutUTF16(s string, n int) string {
	used := 0
	for i, r := range s {
		if used+utf16.RuneLen(r) > n {
			return s[:i]
		}
		used += utf16.RuneLen(r)
	}
	return s
}

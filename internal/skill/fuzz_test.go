package skill

import (
	"testing"
)

// FuzzParse feeds the SKILL.md parser arbitrary files: it returns a
// document or an *Error, never panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nname: postmortem\ndescription: write a blameless postmortem\n---\n# Body\n"))
	f.Add([]byte("\xef\xbb\xbf---\r\nname: a\r\ndescription: \"quoted: yes\"\r\nmetadata:\r\n  keywords: [x, y]\r\n---\r\n"))
	f.Add([]byte("---\nname: broken\ndescription: [unclosed\n---\n"))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("no frontmatter at all"))
	f.Add([]byte("---\nname: &a x\ndescription: *a\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse("/skills/fuzz/SKILL.md", data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Parse returned a %T, want *Error: %v", err, err)
			}
		}
	})
}

package skill

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

func TestParseFields(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Frontmatter
		body string
	}{
		{
			name: "minimal, defaults",
			in:   "---\nname: demo\ndescription: Does a thing.\n---\n# Demo\n",
			want: Frontmatter{Name: "demo", Description: "Does a thing.", UserInvocable: true, AutoInject: true},
			body: "# Demo\n",
		},
		{
			name: "name from directory",
			in:   "---\ndescription: No name here.\n---\nbody",
			want: Frontmatter{Name: "my-skill", NameFromDir: true, Description: "No name here.", UserInvocable: true, AutoInject: true},
			body: "body",
		},
		{
			name: "lists as YAML lists and comma strings",
			in: "---\nname: x\ndescription: d\nkeywords: [helm, \" chart \", helm]\naliases: a, b ,, c\n" +
				"tags:\n  - one\n  - 2\naffinity: [y, z]\n---\n",
			want: Frontmatter{Name: "x", Description: "d", Keywords: []string{"helm", "chart"},
				Aliases: []string{"a", "b", "c"}, Tags: []string{"one", "2"}, Affinity: []string{"y", "z"},
				UserInvocable: true, AutoInject: true},
		},
		{
			name: "metadata lists merge after top-level ones",
			in: "---\nname: x\ndescription: d\ntags: [a]\nmetadata:\n  author: me\n  tags: [a, b]\n" +
				"  keywords: k1, k2\n  aliases: [al]\n---\n",
			want: Frontmatter{Name: "x", Description: "d", Keywords: []string{"k1", "k2"}, Aliases: []string{"al"},
				Tags: []string{"a", "b"}, UserInvocable: true, AutoInject: true},
		},
		{
			name: "policy bools",
			in:   "---\nname: x\ndescription: d\ndisable-model-invocation: true\nuser-invocable: false\nauto-inject: no\n---\n",
			want: Frontmatter{Name: "x", Description: "d", DisableModelInvocation: true},
		},
		{
			name: "autoInject camel case",
			in:   "---\nname: x\ndescription: d\nautoInject: false\n---\n",
			want: Frontmatter{Name: "x", Description: "d", UserInvocable: true},
		},
		{
			name: "auto_inject snake case, null keeps default",
			in:   "---\nname: x\ndescription: d\nauto_inject: False\nuser-invocable:\n---\n",
			want: Frontmatter{Name: "x", Description: "d", UserInvocable: true},
		},
		{
			name: "CRLF and BOM",
			in:   "\xef\xbb\xbf---\r\nname: x\r\ndescription: >-\r\n  folded\r\n  text\r\n---\r\nline one\r\nline two\r\n",
			want: Frontmatter{Name: "x", Description: "folded text", UserInvocable: true, AutoInject: true},
			body: "line one\nline two\n",
		},
		{
			name: "fence with trailing spaces, no final newline, dots and caps in name",
			in:   "---  \nname: My_Skill.v2\ndescription: '  padded  '\n---",
			want: Frontmatter{Name: "My_Skill.v2", Description: "padded", UserInvocable: true, AutoInject: true},
		},
		{
			name: "long description is kept",
			in:   "---\nname: x\ndescription: " + strings.Repeat("a", 2000) + "\n---\n",
			want: Frontmatter{Name: "x", Description: strings.Repeat("a", 2000), UserInvocable: true, AutoInject: true},
		},
		{
			name: "numeric name is text",
			in:   "---\nname: 2048\ndescription: d\n---\n",
			want: Frontmatter{Name: "2048", Description: "d", UserInvocable: true, AutoInject: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse("/skills/my-skill/SKILL.md", []byte(tt.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := tt.want
			for _, l := range []*[]string{&want.Keywords, &want.Aliases, &want.Tags, &want.Affinity} {
				if *l == nil {
					*l = []string{}
				}
			}
			if !reflect.DeepEqual(doc.Frontmatter, want) {
				t.Errorf("frontmatter\n got %+v\nwant %+v", doc.Frontmatter, want)
			}
			if doc.Body != tt.body {
				t.Errorf("body = %q, want %q", doc.Body, tt.body)
			}
		})
	}
}

func TestParseBodyLine(t *testing.T) {
	doc, err := Parse("/s/x/SKILL.md", []byte("---\nname: x\ndescription: d\n---\nfirst body line\n"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.BodyLine != 5 {
		t.Errorf("BodyLine = %d, want 5", doc.BodyLine)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		reason string // substring of Error.Reason
		line   int
	}{
		{"empty file", "", "empty file", 0},
		{"only whitespace", " \n\n", "empty file", 0},
		{"no frontmatter", "# Title\n", "no frontmatter", 1},
		{"fence not first", "\n---\nname: x\ndescription: d\n---\n", "no frontmatter", 1},
		{"not closed", "---\nname: x\ndescription: d\n", "frontmatter is not closed", 1},
		{"malformed YAML has the file line", "---\nname: x\ndescription: a: b\n---\n", "malformed frontmatter: line 3: mapping values", 3},
		{"tab indentation", "---\nname: x\n\tdescription: d\n---\n", "malformed frontmatter: line 3", 3},
		{"unclosed flow list", "---\nname: x\ndescription: [unclosed\n---\n", "malformed frontmatter: line 3: did not find expected ',' or ']'", 3},
		{"unclosed flow list, later line", "---\nname: x\ndescription: d\nkeywords: [a,\n  b\n---\n", "malformed frontmatter: line 4: did not find expected", 4},
		{"unclosed quote", "---\nname: x\ndescription: \"open\nmore: 1\n---\n", "malformed frontmatter: line 3: found unexpected end of stream", 3},
		{"error on the first line", "---\n: x\n---\n", "malformed frontmatter: line 2: ", 2},
		{"bad indentation", "---\nname: x\ndescription: d\n  extra: 1\n---\n", "malformed frontmatter: line 4: mapping values are not allowed", 4},
		{"control character", "---\nname: x\x01\ndescription: d\n---\n", "malformed frontmatter: control characters are not allowed", 0},
		{"not a mapping", "---\njust text\n---\n", "frontmatter is not a YAML mapping", 2},
		{"empty frontmatter", "---\n---\nbody\n", "no description", 0},
		{"no description", "---\nname: x\n---\n", "no description", 0},
		{"null description", "---\nname: x\ndescription:\n---\n", "empty description", 3},
		{"blank description", "---\nname: x\ndescription: \"  \"\n---\n", "empty description", 3},
		{"description list", "---\nname: x\ndescription: [a, b]\n---\n", "description must be a string, got a list", 3},
		{"name mapping", "---\nname: {a: b}\ndescription: d\n---\n", "name must be a string, got a mapping", 2},
		{"name with space", "---\nname: a b\ndescription: d\n---\n", `invalid name "a b": contains whitespace`, 0},
		{"name with slash", "---\nname: a/b\ndescription: d\n---\n", "contains '/'", 0},
		{"name too long", "---\nname: " + strings.Repeat("n", 65) + "\ndescription: d\n---\n", "65 characters", 0},
		{"bad bool", "---\nname: x\ndescription: d\ndisable-model-invocation: maybe\n---\n", `disable-model-invocation: want true or false, got "maybe"`, 4},
		{"duplicate key", "---\nname: x\ndescription: d\nname: y\n---\n", `duplicate frontmatter key "name" (lines 2 and 4)`, 4},
		{"binary", "---\nname: x\x00\n---\n", "binary file: NUL byte at byte offset 11", 2},
		{"invalid UTF-8", "---\nname: x\ndescription: caf\xe9\n---\n", "invalid UTF-8 at line 3 (byte offset 28)", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("/skills/x/SKILL.md", []byte(tt.in))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse error = %v, want *Error", err)
			}
			if !strings.Contains(e.Reason, tt.reason) {
				t.Errorf("reason = %q, want it to contain %q", e.Reason, tt.reason)
			}
			if e.Line != tt.line {
				t.Errorf("line = %d, want %d", e.Line, tt.line)
			}
			if e.Path != "/skills/x/SKILL.md" || !strings.HasPrefix(e.Error(), "/skills/x/SKILL.md: ") {
				t.Errorf("Error() = %q", e.Error())
			}
		})
	}
}

func TestParseBadDirectoryName(t *testing.T) {
	_, err := Parse("/skills/My Skill/SKILL.md", []byte("---\ndescription: d\n---\n"))
	if err == nil || !strings.Contains(err.Error(), `invalid name "My Skill" (the directory name): contains whitespace`) {
		t.Fatalf("err = %v", err)
	}
}

func TestValidName(t *testing.T) {
	for _, ok := range []string{"a", "git-attribution", "pdf_tools", "v1.2", "Caps", strings.Repeat("x", 64), "ünïcode"} {
		if err := ValidName(ok); err != nil {
			t.Errorf("ValidName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, "a b", "a\tb", "a\x01b", strings.Repeat("x", 65)} {
		if err := ValidName(bad); err == nil {
			t.Errorf("ValidName(%q) = nil, want an error", bad)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good/SKILL.md", []byte("---\nname: good\ndescription: d\n---\n"))
	f, err := ReadFile(good, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Size != int64(len(f.Data)) || f.Size == 0 || f.ModTime.IsZero() {
		t.Errorf("File = %+v", f)
	}
	if h := f.Hash(); !strings.HasPrefix(h, "sha256:") || len(h) != len("sha256:")+64 {
		t.Errorf("Hash = %q", h)
	}

	big := write("big/SKILL.md", make([]byte, 100))
	if err := os.Mkdir(filepath.Join(dir, "isdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "isdir", FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "broken")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "loop2"), filepath.Join(dir, "loop1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "loop1"), filepath.Join(dir, "loop2")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	unreadable := write("locked/SKILL.md", []byte("---\n"))
	if err := os.Chmod(unreadable, 0); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, path string
		max        int64
		reason     string
	}{
		{"over the cap", big, 99, "file is over the 99-byte size limit (100 bytes)"},
		{"directory", filepath.Join(dir, "isdir", FileName), 0, "SKILL.md is a directory"},
		{"broken symlink", filepath.Join(dir, "broken"), 0, "broken symlink"},
		{"symlink loop", filepath.Join(dir, "loop1"), 0, "too many levels of symbolic links"},
		{"named pipe is not opened", fifo, 0, "not a regular file"},
		{"missing", filepath.Join(dir, "gone"), 0, "file vanished"},
	}
	if os.Geteuid() != 0 { // root reads anything
		tests = append(tests, struct {
			name, path string
			max        int64
			reason     string
		}{"unreadable", unreadable, 0, "unreadable: open: permission denied"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadFile(tt.path, tt.max)
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(e.Reason, tt.reason) {
				t.Fatalf("ReadFile error = %v, want reason containing %q", err, tt.reason)
			}
		})
	}
	if _, err := ReadFile(big, 100); err != nil {
		t.Errorf("a file exactly at the cap: %v", err)
	}
}

// when_to_use is read as text, and one that is not text is no error.
func TestParseWhenToUse(t *testing.T) {
	doc, err := Parse("/s/x/SKILL.md", []byte("---\nname: x\ndescription: d\nwhen_to_use: after a deploy\n---\nbody\n"))
	if err != nil || doc.WhenToUse != "after a deploy" {
		t.Errorf("when_to_use %q: %v", doc.WhenToUse, err)
	}
	doc, err = Parse("/s/x/SKILL.md", []byte("---\nname: x\ndescription: d\nwhen_to_use: [a, b]\n---\nbody\n"))
	if err != nil || doc.WhenToUse != "" {
		t.Errorf("a list: %q: %v", doc.WhenToUse, err)
	}
}

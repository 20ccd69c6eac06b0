// Package skill reads and parses SKILL.md files: YAML frontmatter between
// two --- lines, then a markdown body. It only reads; nothing in a skill is
// ever executed.
package skill

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/skill-inject/ski/internal/lazyre"
)

// MaxNameLen is the longest skill name accepted, in characters.
const MaxNameLen = 64

// Frontmatter holds the fields ski uses. Lists are never nil.
type Frontmatter struct {
	Name string
	// NameFromDir is true when the frontmatter had no name and Name is the
	// name of the directory holding the SKILL.md.
	NameFromDir bool
	Description string
	// WhenToUse is when_to_use, which Claude Code lists after the
	// description ("" when absent).
	WhenToUse string

	Keywords []string
	Aliases  []string
	Tags     []string
	Affinity []string

	DisableModelInvocation bool // disable-model-invocation, default false
	UserInvocable          bool // user-invocable, default true
	AutoInject             bool // autoInject / auto-inject / auto_inject, default true
}

// Document is a parsed SKILL.md.
type Document struct {
	Frontmatter
	Body     string // the text after the closing --- line
	BodyLine int    // the 1-based line the body starts on
}

// Error says why a SKILL.md cannot be used. Reason is one lowercase phrase
// meant for an error record; Line is the 1-based line in the file when the
// problem has one, else 0.
type Error struct {
	Path   string
	Line   int
	Reason string
}

func (e *Error) Error() string { return e.Path + ": " + e.Reason }

func errorf(path string, line int, format string, args ...any) *Error {
	return &Error{Path: path, Line: line, Reason: fmt.Sprintf(format, args...)}
}

var bom = []byte("\xef\xbb\xbf")

// Parse parses the bytes of the SKILL.md at path. path is used for the
// default name (the directory name) and in errors; Parse does not read it.
// Every failure is an *Error.
func Parse(path string, data []byte) (Document, error) {
	if err := checkText(path, data); err != nil {
		return Document{}, err
	}
	data = bytes.TrimPrefix(data, bom)
	fm, body, bodyLine, err := split(path, data)
	if err != nil {
		return Document{}, err
	}
	meta, err := decode(path, fm)
	if err != nil {
		return Document{}, err
	}
	doc := Document{Frontmatter: meta, Body: body, BodyLine: bodyLine}
	if doc.Name == "" {
		doc.Name = filepath.Base(filepath.Dir(path))
		doc.NameFromDir = true
	}
	if err := ValidName(doc.Name); err != nil {
		from := ""
		if doc.NameFromDir {
			from = " (the directory name)"
		}
		return Document{}, errorf(path, 0, "invalid name %q%s: %v", doc.Name, from, err)
	}
	return doc, nil
}

// checkText rejects binary files and invalid UTF-8.
func checkText(path string, data []byte) error {
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, bom))) == 0 {
		return errorf(path, 0, "empty file")
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return errorf(path, lineAt(data, i), "binary file: NUL byte at byte offset %d", i)
	}
	if !utf8.Valid(data) {
		i := firstInvalid(data)
		n := lineAt(data, i)
		return errorf(path, n, "invalid UTF-8 at line %d (byte offset %d)", n, i)
	}
	return nil
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

func lineAt(b []byte, off int) int { return bytes.Count(b[:off], []byte("\n")) + 1 }

// split cuts data into the frontmatter text (LF line endings) and the body.
func split(path string, data []byte) (fm []byte, body string, bodyLine int, err error) {
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if !isFence(first) {
		return nil, "", 0, errorf(path, 1, "no frontmatter: the file must begin with a --- line")
	}
	var lines [][]byte
	line := 1
	for len(rest) > 0 {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte("\n"))
		line++
		if isFence(l) {
			body := strings.ReplaceAll(string(rest), "\r\n", "\n")
			return bytes.Join(lines, []byte("\n")), body, line + 1, nil
		}
		lines = append(lines, bytes.TrimSuffix(l, []byte("\r")))
	}
	return nil, "", 0, errorf(path, 1, "frontmatter is not closed: no --- line after line 1")
}

func isFence(l []byte) bool {
	return string(bytes.TrimRight(l, " \t\r")) == "---"
}

var yamlLine = lazyre.New(`^yaml: line (\d+): (.*)$`)

// yamlParserProblems are the messages of yaml's parser (as opposed to its
// scanner) errors. The yaml package reports those one line early: it prints
// the 0-based line where the broken construct starts.
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// yamlError turns a yaml error into a 1-based frontmatter line (0 when
// unknown) and its message.
func yamlError(err error) (int, string) {
	msg := strings.TrimSpace(err.Error())
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if yamlParserProblems[m[2]] {
			n++
		}
		return n, m[2]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	// Without a line the problem is on the first line, unless it came from
	// yaml's input reader, which keeps no lines.
	for _, p := range []string{"control characters", "invalid ", "incomplete ", "input error"} {
		if strings.HasPrefix(msg, p) {
			return 0, msg
		}
	}
	if strings.HasPrefix(msg, "unmarshal errors") {
		return 0, msg
	}
	return 1, msg
}

// decode reads the frontmatter mapping. Frontmatter line n is file line n+1.
func decode(path string, fm []byte) (Frontmatter, error) {
	meta := Frontmatter{UserInvocable: true, AutoInject: true}
	var root yaml.Node
	if err := yaml.Unmarshal(fm, &root); err != nil {
		n, msg := yamlError(err)
		if n == 0 {
			return meta, errorf(path, 0, "malformed frontmatter: %s", msg)
		}
		return meta, errorf(path, n+1, "malformed frontmatter: line %d: %s", n+1, msg)
	}
	var m *yaml.Node
	switch {
	case root.Kind == 0 || len(root.Content) == 0:
		// Empty frontmatter: no fields at all.
	case root.Content[0].Kind == yaml.MappingNode:
		m = root.Content[0]
	case root.Content[0].Tag == "!!null":
	default:
		return meta, errorf(path, root.Content[0].Line+1, "frontmatter is not a YAML mapping")
	}

	fields, err := mapping(path, m)
	if err != nil {
		return meta, err
	}
	if meta.Name, err = str(path, fields, "name"); err != nil {
		return meta, err
	}
	meta.Name = strings.TrimSpace(meta.Name)
	if meta.Description, err = str(path, fields, "description"); err != nil {
		return meta, err
	}
	meta.Description = strings.TrimSpace(meta.Description)
	if _, ok := fields["description"]; !ok {
		return meta, errorf(path, 0, "no description")
	}
	if meta.Description == "" {
		return meta, errorf(path, fields["description"].Line+1, "empty description")
	}

	// A when_to_use that is not text is not ski's to refuse.
	meta.WhenToUse, _ = str(path, fields, "when_to_use")

	var metadata map[string]*yaml.Node
	if n := fields["metadata"]; n != nil && n.Kind == yaml.MappingNode {
		if metadata, err = mapping(path, n); err != nil {
			return meta, err
		}
	}
	meta.Keywords = list(fields, metadata, "keywords")
	meta.Aliases = list(fields, metadata, "aliases")
	meta.Tags = list(fields, metadata, "tags")
	meta.Affinity = list(fields, nil, "affinity")

	if err := boolean(path, fields, &meta.DisableModelInvocation, "disable-model-invocation", "disable_model_invocation", "disableModelInvocation"); err != nil {
		return meta, err
	}
	if err := boolean(path, fields, &meta.UserInvocable, "user-invocable", "user_invocable", "userInvocable"); err != nil {
		return meta, err
	}
	if err := boolean(path, fields, &meta.AutoInject, "autoInject", "auto-inject", "auto_inject"); err != nil {
		return meta, err
	}
	return meta, nil
}

// mapping indexes a mapping node by key, rejecting duplicate keys.
func mapping(path string, m *yaml.Node) (map[string]*yaml.Node, error) {
	fields := map[string]*yaml.Node{}
	if m == nil {
		return fields, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if prev, ok := fields[k.Value]; ok {
			return nil, errorf(path, k.Line+1, "duplicate frontmatter key %q (lines %d and %d)", k.Value, prev.Line+1, k.Line+1)
		}
		fields[k.Value] = v
	}
	return fields, nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// str returns a scalar field as text ("" when absent or null).
func str(path string, fields map[string]*yaml.Node, key string) (string, error) {
	n := fields[key]
	if n == nil || isNull(n) {
		return "", nil
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return "", errorf(path, n.Line+1, "%s must be a string, got %s", key, kindName(n))
	}
	return n.Value, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	return "a non-string value"
}

// list gathers a list field from the frontmatter and then from the metadata
// map. A field may be a YAML list or a comma-separated string. Values are
// trimmed, empty ones dropped and repeats removed; the result is never nil.
func list(fields, metadata map[string]*yaml.Node, key string) []string {
	out := []string{}
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, f := range []map[string]*yaml.Node{fields, metadata} {
		n := f[key]
		if n == nil {
			continue
		}
		switch n.Kind {
		case yaml.ScalarNode:
			if !isNull(n) {
				for _, s := range strings.Split(n.Value, ",") {
					add(s)
				}
			}
		case yaml.SequenceNode:
			for _, item := range n.Content {
				if item.Kind == yaml.ScalarNode && !isNull(item) {
					add(item.Value)
				}
			}
		}
	}
	return out
}

// boolean sets *dst from the first of keys present. Accepted spellings are
// YAML's true/false and yes/no/on/off, any case; null keeps the default.
func boolean(path string, fields map[string]*yaml.Node, dst *bool, keys ...string) error {
	for _, key := range keys {
		n := fields[key]
		if n == nil || isNull(n) {
			continue
		}
		if n.Kind == yaml.ScalarNode {
			switch strings.ToLower(strings.TrimSpace(n.Value)) {
			case "true", "yes", "on":
				*dst = true
				return nil
			case "false", "no", "off":
				*dst = false
				return nil
			}
		}
		return errorf(path, n.Line+1, "%s: want true or false, got %q", key, nodeText(n))
	}
	return nil
}

func nodeText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return kindName(n)
}

// ValidName reports why name cannot be a skill name, or nil. Names are 1 to
// MaxNameLen characters with no slash, backslash, whitespace or control
// characters, and are not "." or "..". Case, dots and underscores are
// accepted: hosts document lowercase-and-hyphens but load the others.
func ValidName(name string) error {
	n := utf8.RuneCountInString(name)
	switch {
	case n == 0:
		return fmt.Errorf("empty")
	case n > MaxNameLen:
		return fmt.Errorf("%d characters, over the limit of %d", n, MaxNameLen)
	case name == "." || name == "..":
		return fmt.Errorf("not a usable name")
	}
	for _, r := range name {
		switch {
		case r == '/' || r == '\\':
			return fmt.Errorf("contains %q", r)
		case unicode.IsSpace(r):
			return fmt.Errorf("contains whitespace")
		case unicode.IsControl(r) || r == utf8.RuneError:
			return fmt.Errorf("contains a control character")
		}
	}
	return nil
}

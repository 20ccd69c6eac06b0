package listing

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// claudeCommands are the commands Claude Code still lists as skills: the
// markdown files under the "commands" folder beside each of its skill
// folders (subfolders make "dir:name"; a folder holding a SKILL.md is one
// command), all sorted by name. ski does not index them, but they take
// room in the listing.
func claudeCommands(folders []string) []listed {
	var out []listed
	for _, folder := range folders {
		base := filepath.Join(filepath.Dir(folder), "commands")
		byDir := map[string][]string{}
		var dirs []string
		filepath.WalkDir(base, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
				dir := filepath.Dir(path)
				if _, ok := byDir[dir]; !ok {
					dirs = append(dirs, dir)
				}
				byDir[dir] = append(byDir[dir], path)
			}
			return nil
		})
		for _, dir := range dirs {
			files := byDir[dir]
			if i := slices.IndexFunc(files, func(p string) bool { return strings.EqualFold(filepath.Base(p), "SKILL.md") }); i >= 0 {
				files = files[i : i+1]
			}
			for _, f := range files {
				if c, ok := readCommand(base, f); ok {
					out = append(out, c)
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b listed) int { return Compare(a.name, b.name) })
	return out
}

// commandName is a command's name: its path below base, folders joined
// by ":", without ".md" (or, for a SKILL.md, its folder's path).
func commandName(base, file string) string {
	rel, _ := filepath.Rel(base, file)
	if strings.EqualFold(filepath.Base(file), "SKILL.md") {
		rel = filepath.Dir(rel)
	} else {
		rel = strings.TrimSuffix(rel, ".md")
	}
	return strings.ReplaceAll(rel, string(filepath.Separator), ":")
}

var frontmatter = regexp.MustCompile(`^---\s*\n((?s:.*?))---\s*\n?`)

// maxCommand bounds a command file read.
const maxCommand = 1 << 20

// readCommand reads a command as Claude Code lists it: the frontmatter's
// description (and when_to_use), else the first line of its text (a
// heading's title), cut to 100 characters.
func readCommand(base, path string) (listed, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxCommand {
		return listed{}, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return listed{}, false
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	c := listed{name: commandName(base, path)}
	var fm map[string]any
	if m := frontmatter.FindStringSubmatch(text); m != nil {
		yaml.Unmarshal([]byte(m[1]), &fm)
		text = text[len(m[0]):]
	}
	c.description = strings.TrimSpace(scalar(fm["description"]))
	c.whenToUse = scalar(fm["when_to_use"])
	c.noModel = fm["disable-model-invocation"] == true || fm["disable-model-invocation"] == "true"
	if c.description == "" {
		c.description = firstLine(text, "Custom command")
	}
	return c, true
}

// scalar is a frontmatter value as text ("" for none or a list or map).
func scalar(v any) string {
	switch v.(type) {
	case string, int, float64, bool:
		return fmt.Sprint(v)
	}
	return ""
}

var heading = regexp.MustCompile(`^#+\s+(.+)$`)

// firstLine is the first line of text that is not blank, a heading's
// title for a heading, cut to 100 characters ("..." after 97); def when
// there is none.
func firstLine(text, def string) string {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			line = m[1]
		}
		if utf16Len(line) > 100 {
			return cutUTF16(line, 97) + "..."
		}
		return line
	}
	return def
}

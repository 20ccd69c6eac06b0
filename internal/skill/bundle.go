package skill

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// maxBundled bounds the list of bundled files named in body mode.
const maxBundled = 40

// ReadBodyAndFiles reads the SKILL.md at path (which must be named
// SKILL.md) and returns its body without frontmatter, and the files bundled
// in dir, up to two levels deep, hidden ones left out: what ski-render
// injects in body mode.
func ReadBodyAndFiles(path, dir string) (string, []string, error) {
	if filepath.Base(path) != FileName {
		return "", nil, fmt.Errorf("%s: not a %s", path, FileName)
	}
	body, err := ReadBody(path)
	if err != nil {
		return "", nil, err
	}
	return body, bundled(dir), nil
}

func bundled(dir string) []string {
	var files []string
	root := filepath.Clean(dir)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.Count(rel, string(filepath.Separator)) >= 1 {
				return filepath.SkipDir
			}
			return nil
		}
		if rel != FileName && len(files) < maxBundled {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files)
	return files
}

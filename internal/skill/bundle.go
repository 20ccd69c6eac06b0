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
// in dir (BundledFiles): what ski-render injects in body mode.
func ReadBodyAndFiles(path, dir string) (string, []string, error) {
	if filepath.Base(path) != FileName {
		return "", nil, fmt.Errorf("%s: not a %s", path, FileName)
	}
	body, err := ReadBody(path)
	if err != nil {
		return "", nil, err
	}
	files, _ := BundledFiles(dir)
	return body, files, nil
}

// BundledFiles lists the files in dir, up to two levels deep, hidden ones
// left out, as paths relative to dir (at most 40). A symbolic link whose
// target is not inside dir is left out too, and counted in refused: a
// skill's files are its own folder's.
func BundledFiles(dir string) (files []string, refused int) {
	root := filepath.Clean(dir)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, 0
	}
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
		if d.Type()&fs.ModeSymlink != 0 && !inside(realRoot, p) {
			refused++
			return nil
		}
		if rel != FileName && len(files) < maxBundled {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files)
	return files, refused
}

// inside reports whether the link at p resolves to a path inside root (a
// resolved directory).
func inside(root, p string) bool {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, target)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

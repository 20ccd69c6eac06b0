package scan

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/skill-inject/ski/internal/skill"
)

// hit is an entry named SKILL.md found under a root. It may still turn out
// to be a directory, a broken symlink or unreadable: ReadFile decides.
type hit struct {
	id   string
	path string
}

// problem is a directory that could not be listed.
type problem struct {
	id, path, reason string
}

// walker finds SKILL.md entries below one root. It follows symlinked
// directories but enters each real directory once, so links that loop end.
type walker struct {
	root     string
	maxDepth int
	visited  map[string]bool
	hits     []hit
	problems []problem
}

func walk(root string, maxDepth int) ([]hit, []problem) {
	w := &walker{root: root, maxDepth: maxDepth, visited: map[string]bool{}}
	w.dir(root, "", 0)
	return w.hits, w.problems
}

// skipDir reports directories never searched below a root.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

// id is the slash-separated path of the skill's folder relative to the
// root; a SKILL.md in the root itself takes the root's base name.
func (w *walker) id(rel string) string {
	if rel == "" {
		return filepath.Base(w.root)
	}
	return rel
}

func (w *walker) dir(dir, rel string, depth int) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	if w.visited[real] {
		return
	}
	w.visited[real] = true

	entries, err := os.ReadDir(dir)
	if err != nil {
		// ReadDir may return the entries it read before failing.
		w.problems = append(w.problems, problem{id: w.id(rel), path: dir, reason: fmt.Sprintf("unreadable directory: %v", unwrapPath(err))})
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		if name == skill.FileName {
			w.hits = append(w.hits, hit{id: w.id(rel), path: p})
			continue
		}
		if depth >= w.maxDepth || skipDir(name) {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			st, err := os.Stat(p)
			isDir = err == nil && st.IsDir()
		}
		if isDir {
			w.dir(p, path.Join(rel, name), depth+1)
		}
	}
}

func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

func dirOf(p string) string { return filepath.Dir(p) }

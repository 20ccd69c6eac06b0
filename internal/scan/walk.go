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

// maxEntries bounds the directory entries one root's walk looks at: a
// skill root is a folder of skill folders, and a walk that meets more has
// been led somewhere else (a link to a home or a system tree). A variable
// so that tests can lower it.
var maxEntries = 50_000

// systemTrees are folders a symlink below a root is never followed into:
// the whole file system, or the system's own trees (kernel interfaces
// among them), where no skill lives and a walk only costs time.
var systemTrees = []string{"/", "/proc", "/sys", "/dev", "/run", "/boot", "/etc", "/usr", "/bin", "/sbin",
	"/lib", "/lib32", "/lib64", "/var", "/snap", "/System", "/Library", "/private/etc", "/private/var/db"}

// walker finds SKILL.md entries below one root. It follows symlinked
// directories but enters each real directory once, so links that loop end,
// never follows one into a system tree, and stops after maxEntries entries;
// what it does not walk becomes a problem.
type walker struct {
	root     string
	maxDepth int
	entries  int
	visited  map[string]bool
	listings *Listings // nil: every directory is listed
	hits     []hit
	problems []problem
}

// walk walks root, taking unchanged directories' entries from l (nil:
// listing every directory).
func walk(root string, maxDepth int, l *Listings) ([]hit, []problem) {
	w := &walker{root: root, maxDepth: maxDepth, visited: make(map[string]bool, l.size()), listings: l}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = filepath.Clean(root)
	}
	w.dir(root, "", 0, real)
	return w.hits, w.problems
}

// systemTree reports whether real (a resolved path) is a system tree or
// lies in one other than the whole file system.
func systemTree(real string) bool {
	for _, t := range systemTrees {
		if real == t || t != "/" && strings.HasPrefix(real, t+"/") {
			return true
		}
	}
	return false
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

// dir walks dir, whose resolved path is real: a plain folder's is its
// parent's plus its name, so only symlinks are resolved (resolving every
// folder cost a third of a walk over 10,000 skills).
func (w *walker) dir(dir, rel string, depth int, real string) {
	if w.visited[real] {
		return
	}
	w.visited[real] = true

	entries, err := w.listings.list(dir)
	// Entries are joined to the folder cleaned (every one below the root
	// is clean already).
	clean := dir
	if rel == "" {
		clean = filepath.Clean(dir)
	}
	if err != nil {
		// A listing may hold the entries read before it failed.
		w.problems = append(w.problems, problem{id: w.id(rel), path: dir, reason: fmt.Sprintf("unreadable directory: %v", unwrapPath(err))})
	}
	for _, e := range entries {
		if w.entries++; w.entries > maxEntries {
			if w.entries == maxEntries+1 {
				w.problems = append(w.problems, problem{id: w.id(rel), path: dir,
					reason: fmt.Sprintf("walk stopped after %d entries below the root %s", maxEntries, w.root)})
			}
			return
		}
		name := e.name
		p := joinName(clean, name)
		if name == skill.FileName {
			w.hits = append(w.hits, hit{id: w.id(rel), path: p})
			continue
		}
		if depth >= w.maxDepth || skipDir(name) {
			continue
		}
		isDir, sub := e.kind == kindDir, joinName(real, name)
		if e.kind == kindLink {
			st, err := os.Stat(p)
			isDir = err == nil && st.IsDir()
			resolved, err := filepath.EvalSymlinks(p)
			if err != nil {
				resolved = p
			}
			if isDir && err == nil && systemTree(resolved) {
				w.problems = append(w.problems, problem{id: path.Join(rel, name), path: p,
					reason: fmt.Sprintf("symlink into the system tree %s: not followed", resolved)})
				continue
			}
			sub = resolved
		}
		if isDir {
			subRel := name
			if rel != "" {
				subRel = rel + "/" + name
			}
			w.dir(p, subRel, depth+1, sub)
		}
	}
}

// joinName is filepath.Join(dir, name) for a clean dir and the name of one
// of its entries (never "", "." or ".." nor holding a slash), without
// cleaning again what is clean: with 10,000 skill folders, the cleaning
// took ~8% of a stamp.
func joinName(dir, name string) string {
	switch {
	case dir == ".":
		return name
	case strings.HasSuffix(dir, "/"):
		return dir + name
	}
	return dir + "/" + name
}

func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

func dirOf(p string) string { return filepath.Dir(p) }

// Package workspace reads what a project declares it is built with: the
// dependencies in its go.mod, package.json, pyproject.toml and Cargo.toml,
// and the languages those files stand for. Skills named after them can then
// rank a little higher inside that project.
package workspace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// maxManifest is the largest manifest read; a larger one is passed over.
const maxManifest = 1 << 20

// Deps returns the names the project around dir depends on, lower case:
// each dependency's name (a Go module's last path element without its
// major version, an npm package's name and its @scope), and the language
// of each manifest ("go", "javascript", "typescript", "python", "rust").
// The project is the nearest directory from dir upwards, up to the
// repository root (a directory holding .git), with a manifest; unreadable
// or malformed manifests give nothing. Nil when there is none.
func Deps(dir string) []string {
	if dir == "" || !filepath.IsAbs(dir) {
		return nil
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if names, found := read(d); found {
			return names
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil || filepath.Dir(d) == d {
			return nil
		}
	}
}

// read reads the manifests in dir; found says there was one.
func read(dir string) (names []string, found bool) {
	seen := map[string]bool{}
	add := func(ns ...string) {
		for _, n := range ns {
			if n = strings.ToLower(strings.TrimSpace(n)); n != "" && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	for _, m := range manifests {
		data, ok := readSmall(filepath.Join(dir, m.file))
		if !ok {
			continue
		}
		found = true
		add(m.languages...)
		for _, d := range m.parse(data) {
			add(d)
		}
	}
	if seen["types"] {
		add("typescript")
	}
	sort.Strings(names)
	return names, found
}

func readSmall(path string) ([]byte, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxManifest {
		return nil, false
	}
	data, err := os.ReadFile(path)
	return data, err == nil
}

var manifests = []struct {
	file      string
	languages []string
	parse     func([]byte) []string
}{
	{"go.mod", []string{"go", "golang"}, goMod},
	{"package.json", []string{"javascript", "node"}, packageJSON},
	{"pyproject.toml", []string{"python"}, pyproject},
	{"Cargo.toml", []string{"rust"}, cargo},
}

// goMod returns the last path element of each required module, without a
// /vN major version suffix.
func goMod(data []byte) []string {
	var out []string
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "require (":
			inBlock = true
			continue
		case inBlock && line == ")":
			inBlock = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !inBlock:
			continue
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		parts := strings.Split(fields[0], "/")
		last := parts[len(parts)-1]
		if len(parts) > 1 && isMajor(last) {
			last = parts[len(parts)-2]
		}
		out = append(out, last)
	}
	return out
}

func isMajor(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// packageJSON returns the packages of dependencies, devDependencies and
// peerDependencies; a scoped package gives its name and its scope.
func packageJSON(data []byte) []string {
	var p struct {
		Dependencies, DevDependencies, PeerDependencies map[string]any
	}
	if json.Unmarshal(data, &p) != nil {
		return nil
	}
	var out []string
	for _, deps := range []map[string]any{p.Dependencies, p.DevDependencies, p.PeerDependencies} {
		for name := range deps {
			if scope, pkg, ok := strings.Cut(strings.TrimPrefix(name, "@"), "/"); ok && strings.HasPrefix(name, "@") {
				out = append(out, pkg, scope)
				continue
			}
			out = append(out, name)
		}
	}
	return out
}

// pyproject returns the distributions of [project] dependencies and
// optional-dependencies, and of Poetry's dependency tables.
func pyproject(data []byte) []string {
	var p struct {
		Project struct {
			Dependencies         []string
			OptionalDependencies map[string][]string `toml:"optional-dependencies"`
		}
		Tool struct {
			Poetry struct {
				Dependencies    map[string]any
				DevDependencies map[string]any `toml:"dev-dependencies"`
			}
		}
	}
	if _, err := toml.Decode(string(data), &p); err != nil {
		return nil
	}
	var out []string
	reqs := p.Project.Dependencies
	for _, extra := range p.Project.OptionalDependencies {
		reqs = append(reqs, extra...)
	}
	for _, r := range reqs {
		if i := strings.IndexAny(r, " <>=!~[;@("); i >= 0 {
			r = r[:i]
		}
		out = append(out, r)
	}
	for _, deps := range []map[string]any{p.Tool.Poetry.Dependencies, p.Tool.Poetry.DevDependencies} {
		for name := range deps {
			if name != "python" {
				out = append(out, name)
			}
		}
	}
	return out
}

// cargo returns the crates of [dependencies] and [dev-dependencies].
func cargo(data []byte) []string {
	var c struct {
		Dependencies    map[string]any
		DevDependencies map[string]any `toml:"dev-dependencies"`
	}
	if _, err := toml.Decode(string(data), &c); err != nil {
		return nil
	}
	var out []string
	for _, deps := range []map[string]any{c.Dependencies, c.DevDependencies} {
		for name := range deps {
			out = append(out, name)
		}
	}
	return out
}

package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skill-inject/ski/internal/record"
)

// DefaultMaxDepth is how many directory levels below a root are searched
// for SKILL.md files when Options.MaxDepth is 0.
const DefaultMaxDepth = 6

// Precedence lists the scopes of host from the one that wins a name
// collision to the one that loses; output is sorted in this order too.
//
// Claude Code documents that a personal skill (~/.claude/skills) overrides
// a project one of the same name; plugin skills are namespaced
// ("plugin:skill") and so never collide with either. opencode loads the
// project directories after the user ones and the last skill of a name
// wins, so there the project scope comes first.
func Precedence(host string) []string {
	if host == record.HostOpencode {
		return []string{record.ScopeProject, record.ScopeUser, record.ScopePlugin, record.ScopeExtra}
	}
	return []string{record.ScopeUser, record.ScopeProject, record.ScopePlugin, record.ScopeExtra}
}

func scopeRank(host, scope string) int {
	if i := slices.Index(Precedence(host), scope); i >= 0 {
		return i
	}
	return len(Precedence(host))
}

// normalize fills in defaults and checks the host.
func (o Options) normalize() (Options, error) {
	switch o.Host {
	case "":
		o.Host = record.HostClaude
	case record.HostClaude, record.HostOpencode:
	default:
		return o, fmt.Errorf("unknown host %q (want %s or %s)", o.Host, record.HostClaude, record.HostOpencode)
	}
	if o.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, fmt.Errorf("current directory: %w", err)
		}
		o.Cwd = wd
	}
	if !filepath.IsAbs(o.Cwd) {
		abs, err := filepath.Abs(o.Cwd)
		if err != nil {
			return o, fmt.Errorf("cwd %q: %w", o.Cwd, err)
		}
		o.Cwd = abs
	}
	o.Cwd = filepath.Clean(o.Cwd)
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.ConfigHome == "" && o.Home != "" {
		o.ConfigHome = filepath.Join(o.Home, ".config")
	}
	if o.ClaudeConfigDir == "" && o.Home != "" {
		o.ClaudeConfigDir = filepath.Join(o.Home, ".claude")
	}
	switch {
	case o.MaxDepth == 0:
		o.MaxDepth = DefaultMaxDepth
	case o.MaxDepth < 0:
		o.MaxDepth = 0 // only SKILL.md directly in a root
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	return o, nil
}

// Roots lists the directories a scan of o searches, in precedence order,
// each directory once. Host roots are listed only when they exist; explicit
// and extra roots always are (Scan reports the missing ones).
func Roots(o Options) []Root {
	o, err := o.normalize()
	if err != nil {
		o.Host = ""
	}
	var roots []Root
	if len(o.Roots) > 0 {
		for _, p := range o.Roots {
			roots = append(roots, Root{Path: o.expand(p, o.Cwd), Scope: record.ScopeUser, Source: "--root", Explicit: true})
		}
	} else {
		switch o.Host {
		case record.HostClaude:
			roots = claudeRoots(o)
		case record.HostOpencode:
			roots = opencodeRoots(o)
		}
	}
	for _, p := range o.ExtraRoots {
		roots = append(roots, Root{Path: o.expand(p, o.Cwd), Scope: record.ScopeExtra, Source: "extra_roots"})
	}
	slices.SortStableFunc(roots, func(a, b Root) int {
		return scopeRank(o.Host, a.Scope) - scopeRank(o.Host, b.Scope)
	})
	// The same directory reached twice (cwd is $HOME, a symlinked root)
	// is searched once, under the root that comes first.
	// One that is a user root as well keeps the user's ids (sourceID), so
	// its skills' ids do not depend on the cwd.
	seen := map[string]int{}
	out := roots[:0]
	for _, r := range roots {
		key := canonical(r.Path)
		if i, ok := seen[key]; ok {
			if r.Scope == record.ScopeUser {
				out[i].UserDir = true
			}
			continue
		}
		seen[key] = len(out)
		out = append(out, r)
	}
	return out
}

// Places lists the folders a scan of o looks for skills in, in precedence
// order, those missing too (Roots lists the host's that exist).
func Places(o Options) []string {
	o.places = true
	var paths []string
	for _, r := range Roots(o) {
		paths = append(paths, r.Path)
	}
	return paths
}

// expand makes p absolute: "~" and "~/..." are under Home, relative paths
// are under base.
func (o Options) expand(p, base string) string {
	switch {
	case p == "~":
		p = o.Home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(o.Home, p[2:])
	case !filepath.IsAbs(p):
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

func canonical(p string) string {
	if c, err := filepath.EvalSymlinks(p); err == nil {
		return c
	}
	return filepath.Clean(p)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// ProjectDirs lists the directories whose .claude (or .opencode) folder
// belongs to the project in cwd: cwd and its parents up to the
// repository root, nearest first (see projectDirs).
func ProjectDirs(cwd string) []string { return projectDirs(filepath.Clean(cwd)) }

// projectDirs lists cwd and its parents up to the repository root (the
// nearest directory holding .git), nearest first. Outside a repository it
// is just cwd.
func projectDirs(cwd string) []string {
	var dirs []string
	for d := cwd; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if exists(filepath.Join(d, ".git")) {
			return dirs
		}
		if filepath.Dir(d) == d {
			return []string{cwd}
		}
	}
}

// addDir appends a root when the directory exists (or, for Places, in
// any case).
func addDir(o Options, roots []Root, path, scope, source string) []Root {
	if o.places || isDir(path) {
		roots = append(roots, Root{Path: filepath.Clean(path), Scope: scope, Source: source})
	}
	return roots
}

// claudeRoots: ~/.claude/skills, .claude/skills from cwd up to the
// repository root, then the skills of enabled plugins.
func claudeRoots(o Options) []Root {
	var roots []Root
	if o.ClaudeConfigDir != "" {
		roots = addDir(o, roots, filepath.Join(o.ClaudeConfigDir, "skills"), record.ScopeUser, "claude user skills")
	}
	for _, d := range projectDirs(o.Cwd) {
		roots = addDir(o, roots, filepath.Join(d, ".claude", "skills"), record.ScopeProject, "claude project skills")
	}
	return append(roots, pluginRoots(o)...)
}

// opencodeRoots mirrors opencode's skill discovery. Within a scope the root
// opencode loads last (and so keeps on a name collision) comes first.
func opencodeRoots(o Options) []Root {
	project, user := opencodeSkillPaths(o)
	roots := project
	for _, d := range projectDirs(o.Cwd) {
		for _, sub := range []string{".opencode/skill", ".opencode/skills", ".agents/skills", ".claude/skills"} {
			roots = addDir(o, roots, filepath.Join(d, filepath.FromSlash(sub)), record.ScopeProject, "opencode project skills")
		}
	}
	roots = append(roots, user...)
	for _, d := range o.opencodeConfigDirs() {
		roots = addDir(o, roots, filepath.Join(d, "skill"), record.ScopeUser, "opencode config skills")
		roots = addDir(o, roots, filepath.Join(d, "skills"), record.ScopeUser, "opencode config skills")
	}
	if o.Home != "" {
		roots = addDir(o, roots, filepath.Join(o.Home, ".agents", "skills"), record.ScopeUser, "opencode user skills")
		roots = addDir(o, roots, filepath.Join(o.Home, ".claude", "skills"), record.ScopeUser, "opencode user skills")
	}
	return roots
}

// opencodeConfigDirs are opencode's global config folders, in the order it
// reads them: $OPENCODE_CONFIG_DIR, ~/.opencode, $XDG_CONFIG_HOME/opencode.
func (o Options) opencodeConfigDirs() []string {
	var dirs []string
	if o.OpencodeConfigDir != "" {
		dirs = append(dirs, o.expand(o.OpencodeConfigDir, o.Cwd))
	}
	if o.Home != "" {
		dirs = append(dirs, filepath.Join(o.Home, ".opencode"))
	}
	if o.ConfigHome != "" {
		dirs = append(dirs, filepath.Join(o.ConfigHome, "opencode"))
	}
	return dirs
}

// opencodeSkillPaths reads skills.paths from opencode's config files.
// opencode resolves a relative entry against the directory it runs in (not
// the file's), and "~/" against the home directory; so does this. Entries
// of every file are used, a project file's as project roots and the global
// files' as user roots, nearest file first.
func opencodeSkillPaths(o Options) (project, user []Root) {
	var files []string
	for _, d := range projectDirs(o.Cwd) {
		files = append(files,
			filepath.Join(d, ".opencode", "opencode.jsonc"), filepath.Join(d, ".opencode", "opencode.json"),
			filepath.Join(d, "opencode.jsonc"), filepath.Join(d, "opencode.json"))
	}
	nProject := len(files)
	for _, d := range o.opencodeConfigDirs() {
		files = append(files, filepath.Join(d, "opencode.jsonc"), filepath.Join(d, "opencode.json"), filepath.Join(d, "config.json"))
	}
	for i, f := range files {
		var cfg struct {
			Skills struct {
				Paths []string `json:"paths"`
			} `json:"skills"`
		}
		ok, err := readJSONC(f, &cfg)
		if !ok {
			continue
		}
		if err != nil {
			o.Warn(fmt.Sprintf("%s: %v (skills.paths ignored)", f, err))
			continue
		}
		scope := record.ScopeUser
		if i < nProject {
			scope = record.ScopeProject
		}
		for _, p := range cfg.Skills.Paths {
			if strings.TrimSpace(p) == "" {
				continue
			}
			dir := o.expand(p, o.Cwd)
			if !isDir(dir) {
				o.Warn(fmt.Sprintf("%s: skills.paths entry %q: no such directory", f, p))
				continue
			}
			r := Root{Path: dir, Scope: scope, Source: "skills.paths in " + f}
			if scope == record.ScopeProject {
				project = append(project, r)
			} else {
				user = append(user, r)
			}
		}
	}
	return project, user
}

package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skill-inject/ski/internal/xdg"
)

// FromEnv builds the options every stage uses to find a host's skills from
// the environment: HOME and the XDG directories, CLAUDE_CONFIG_DIR,
// OPENCODE_CONFIG_DIR, and SKI_ROOTS (colon-separated; relative entries are
// taken from the current directory; entries that are not directories are
// skipped with a warning, since the variable is often set once for many runs).
func FromEnv(getenv func(string) string, host, cwd string, extraRoots []string, warn func(string)) Options {
	if warn == nil {
		warn = func(string) {}
	}
	return Options{
		Host:              host,
		Cwd:               cwd,
		Roots:             envRoots(getenv("SKI_ROOTS"), warn),
		ExtraRoots:        extraRoots,
		Home:              xdg.Resolve(getenv).Home,
		ConfigHome:        xdg.ConfigHome(getenv),
		ClaudeConfigDir:   absPath(getenv("CLAUDE_CONFIG_DIR")),
		OpencodeConfigDir: absPath(getenv("OPENCODE_CONFIG_DIR")),
		Warn:              warn,
	}
}

func envRoots(v string, warn func(string)) []string {
	var out []string
	for _, p := range filepath.SplitList(v) {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			warn(fmt.Sprintf("SKI_ROOTS entry %s is not a directory (skipped)", p))
			continue
		}
		out = append(out, p)
	}
	return out
}

// absPath ignores relative values of path variables.
func absPath(v string) string {
	if v != "" && filepath.IsAbs(v) {
		return v
	}
	return ""
}

package scan

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skill-inject/ski/internal/environ"
)

// FromEnv builds the options every stage uses to find a host's skills from
// the environment: HOME and the XDG directories, CLAUDE_CONFIG_DIR,
// OPENCODE_CONFIG_DIR, and SKI_ROOTS (relative entries are taken from the
// current directory; entries that are not directories are skipped with a
// warning, since the variable is often set once for many runs).
func FromEnv(e environ.Env, host, cwd string, extraRoots []string, warn func(string)) Options {
	if warn == nil {
		warn = func(string) {}
	}
	return Options{
		Host:              host,
		Cwd:               cwd,
		Roots:             envRoots(e.Roots, warn),
		ExtraRoots:        extraRoots,
		Home:              e.Home,
		ConfigHome:        e.ConfigHome,
		ClaudeConfigDir:   e.ClaudeConfigDir,
		OpencodeConfigDir: e.OpencodeConfigDir,
		Warn:              warn,
	}
}

func envRoots(roots []string, warn func(string)) []string {
	var out []string
	for _, p := range roots {
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

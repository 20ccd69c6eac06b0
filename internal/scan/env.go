package scan

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skill-inject/ski/internal/config"
	"github.com/skill-inject/ski/internal/environ"
)

// ForDir builds the options every stage uses to find host's skills from
// cwd: the environment's folders (HOME and the XDG directories,
// CLAUDE_CONFIG_DIR, OPENCODE_CONFIG_DIR), its SKI_ROOTS (relative entries
// are taken from the current directory; entries that are not directories
// are skipped with a warning, since the variable is often set once for many
// runs) and the extra roots of cwd's config c.
func ForDir(e environ.Env, c config.Config, host, cwd string, warn func(string)) Options {
	if warn == nil {
		warn = func(string) {}
	}
	return Options{
		Host:              host,
		Cwd:               cwd,
		Roots:             envRoots(e.Roots, warn),
		ExtraRoots:        c.ExtraRoots,
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

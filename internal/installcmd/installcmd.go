// Package installcmd is ski-install's work: wiring ski's hooks, plugin and
// MCP server into the hosts' settings, or taking them out again.
package installcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/hostconf"
	"github.com/skill-inject/ski/internal/install"
)

// Options are ski-install's flags.
type Options struct {
	Host      string // claude, opencode or all
	Scripts   string // the folder of the hook scripts; "" for $XDG_DATA_HOME/ski/scripts
	Uninstall bool
}

// Run installs (or uninstalls) ski into the hosts o names, and keeps the
// record of what it made.
func Run(env cli.Env, o Options) error {
	if o.Host != "claude" && o.Host != "opencode" && o.Host != "all" {
		return cli.Usagef("--host %q: want claude, opencode or all", o.Host)
	}
	dirs := env.Environ.Dirs
	if o.Scripts == "" {
		o.Scripts = filepath.Join(dirs.Data, "scripts")
	}
	abs, err := filepath.Abs(o.Scripts)
	if err != nil {
		return err
	}
	rec, err := install.ReadRecord(dirs.Data)
	if err != nil {
		return err
	}
	if err := wire(env, o.Host, abs, o.Uninstall, rec); err != nil {
		return err
	}
	return rec.Write()
}

// wire installs or uninstalls the hooks of host (claude, opencode or all)
// whose scripts are in dir, noting what it makes in rec.
func wire(env cli.Env, host, dir string, uninstall bool, rec *install.Record) error {
	report := func(path, verb string) { fmt.Fprintf(env.Stderr, "ski-install: %s %s\n", verb, path) }
	if host != "opencode" {
		script := filepath.Join(dir, "hook-claude.sh")
		if err := needScript(script, uninstall); err != nil {
			return err
		}
		path := filepath.Join(env.Environ.ClaudeDir(), "settings.json")
		wiring, err := install.InspectClaude(path)
		if err != nil {
			return err
		}
		// With the ski plugin enabled, its hooks run ski: hooks in
		// settings.json as well would run every hook twice.
		add := !uninstall && wiring.Plugin == ""
		if !uninstall && !add {
			fmt.Fprintf(env.Stderr, "ski-install: the ski plugin %s is enabled in %s and runs ski's hooks; not adding them again\n", wiring.Plugin, path)
		}
		change, err := install.ClaudeSettings(path, script, add, rec, time.Now())
		if err != nil {
			return err
		}
		if err := install.MarkHooks(env.Environ.Dirs.Data, path, add); err != nil {
			return err
		}
		verbs := map[install.Change]string{install.Unchanged: "unchanged", install.Changed: "wired ski into",
			install.Restored: "restored as it was before ski in", install.Removed: "removed (ski created it, and it held nothing else)"}
		if uninstall {
			verbs[install.Changed] = "removed ski from"
		}
		report(path, verbs[change])
		// ski's MCP server (skill_search, skill_load) in the user-scope
		// mcpServers, on the same terms as the hooks.
		global := hostconf.GlobalFile(env.Environ.Home, env.Environ.ClaudeConfigDir)
		if change, err = install.ClaudeMCP(global, mcpBinary(), add, rec); err != nil {
			return err
		}
		report(global, verbs[change])
	}
	if host != "claude" {
		script := filepath.Join(dir, "hook-opencode.sh")
		if err := needScript(script, uninstall); err != nil {
			return err
		}
		path := install.OpencodePluginPath(env.Environ.ConfigHome)
		changed, err := install.OpencodePlugin(path, script, !uninstall)
		if err != nil {
			return err
		}
		verb := "unchanged"
		switch {
		case changed && uninstall:
			verb = "removed ski's plugin"
		case changed:
			verb = "wired ski into"
		}
		report(path, verb)
	}
	return nil
}

// mcpBinary is the ski-mcp beside this program (install.sh installs both
// into $XDG_DATA_HOME/ski/bin).
func mcpBinary() string {
	exe, err := os.Executable()
	if err != nil {
		return "ski-mcp"
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Join(filepath.Dir(exe), "ski-mcp")
}

func needScript(path string, uninstall bool) error {
	if uninstall {
		return nil
	}
	if st, err := os.Stat(path); err != nil || st.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is missing or not executable (run scripts/install.sh, or give --scripts)", path)
	}
	return nil
}

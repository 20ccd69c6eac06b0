package main

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/hostconf"
	"github.com/skill-inject/ski/internal/install"
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

func main() { os.Exit(cli.Main("ski-install", cli.OSEnv(), run)) }

func run(env cli.Env) error {
	fs := cli.NewFlags("ski-install", cli.Manual(docSource), env)
	host := fs.String("host", "all", "host to wire: claude, opencode or all")
	scripts := fs.String("scripts", "", "`dir` holding the hook scripts (default $XDG_DATA_HOME/ski/scripts)")
	uninstall := fs.Bool("uninstall", false, "remove ski's hooks and plugin")
	if err := cli.ParseNoArgs(fs, env); err != nil {
		return err
	}
	if *host != "claude" && *host != "opencode" && *host != "all" {
		return cli.Usagef("--host %q: want claude, opencode or all", *host)
	}
	dirs := env.Environ.Dirs
	if *scripts == "" {
		*scripts = filepath.Join(dirs.Data, "scripts")
	}
	abs, err := filepath.Abs(*scripts)
	if err != nil {
		return err
	}
	report := func(path string, changed bool) {
		verb := "unchanged"
		switch {
		case changed && *uninstall:
			verb = "removed ski from"
		case changed:
			verb = "wired ski into"
		}
		fmt.Fprintf(env.Stderr, "ski-install: %s %s\n", verb, path)
	}
	if *host != "opencode" {
		script := filepath.Join(abs, "hook-claude.sh")
		if err := needScript(script, *uninstall); err != nil {
			return err
		}
		path := filepath.Join(env.Environ.ClaudeDir(), "settings.json")
		wiring, err := install.InspectClaude(path)
		if err != nil {
			return err
		}
		// With the ski plugin enabled, its hooks run ski: hooks in
		// settings.json as well would run every hook twice.
		add := !*uninstall && wiring.Plugin == ""
		if !*uninstall && !add {
			fmt.Fprintf(env.Stderr, "ski-install: the ski plugin %s is enabled in %s and runs ski's hooks; not adding them again\n", wiring.Plugin, path)
		}
		changed, err := install.ClaudeSettings(path, script, add, time.Now())
		if err != nil {
			return err
		}
		if err := install.MarkHooks(dirs.Data, path, add); err != nil {
			return err
		}
		report(path, changed)
		// ski's MCP server (skill_search, skill_load) in the user-scope
		// mcpServers, on the same terms as the hooks.
		global := hostconf.GlobalFile(env.Environ.Home, env.Environ.ClaudeConfigDir)
		if changed, err = install.ClaudeMCP(global, mcpBinary(), add); err != nil {
			return err
		}
		report(global, changed)
	}
	if *host != "claude" {
		script := filepath.Join(abs, "hook-opencode.sh")
		if err := needScript(script, *uninstall); err != nil {
			return err
		}
		path := install.OpencodePluginPath(env.Environ.ConfigHome)
		changed, err := install.OpencodePlugin(path, script, !*uninstall)
		if err != nil {
			return err
		}
		report(path, changed)
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

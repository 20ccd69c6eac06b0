package main

import (
	_ "embed"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/installcmd"
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

func main() { os.Exit(cli.Main("ski-install", cli.OSEnv(), run)) }

func run(env cli.Env) error {
	fs := cli.NewFlags("ski-install", cli.Manual(docSource), env)
	var o installcmd.Options
	fs.StringVar(&o.Host, "host", "all", "host to wire: claude, opencode or all")
	fs.StringVar(&o.Scripts, "scripts", "", "`dir` holding the hook scripts (default $XDG_DATA_HOME/ski/scripts)")
	fs.BoolVar(&o.Uninstall, "uninstall", false, "remove ski's hooks and plugin")
	if err := cli.ParseNoArgs(fs, env); err != nil {
		return err
	}
	return installcmd.Run(env, o)
}

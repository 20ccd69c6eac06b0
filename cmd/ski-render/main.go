package main

import (
	"fmt"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/render"
	"github.com/skill-inject/ski/internal/settings"
	"github.com/skill-inject/ski/internal/skill"
	"github.com/skill-inject/ski/internal/xdg"
)

func main() { os.Exit(cli.Main("ski-render", cli.OSEnv(), run)) }

func run(env cli.Env) error {
	fs := cli.NewFlags("ski-render", usage, env)
	host := fs.String("host", "", "payload format: claude or opencode (required)")
	mode := fs.String("mode", "", "override inject_mode: directive or body")
	maxLine := fs.Int("max-line", 1<<20, "longest input line in `bytes`")
	if err := cli.ParseNoArgs(fs, env); err != nil {
		return err
	}
	if *host != record.HostClaude && *host != record.HostOpencode {
		return cli.Usagef("--host %q: want claude or opencode", *host)
	}
	if *mode != "" && *mode != "directive" && *mode != "body" {
		return cli.Usagef("--mode %q: want directive or body", *mode)
	}
	dirs := xdg.Resolve(env.Getenv)
	res := &settings.Resolver{ConfigDir: dirs.Config, Warn: func(msg string) { fmt.Fprintf(env.Stderr, "ski-render: warning: %s\n", msg) }}
	return render.Run(render.Options{
		Host: *host,
		Settings: func(cwd string) (render.Settings, error) {
			s, err := res.Render(cwd)
			if *mode != "" {
				s.Mode = *mode
			}
			return s, err
		},
		ReadBody: skill.ReadBodyAndFiles,
		MaxLine:  *maxLine,
	}, env.Stdin, env.Stdout)
}

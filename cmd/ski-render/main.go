package main

import (
	_ "embed"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/render"
	"github.com/skill-inject/ski/internal/settings"
	"github.com/skill-inject/ski/internal/skill"
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

func main() { os.Exit(cli.Main("ski-render", cli.OSEnv(), run)) }

func run(env cli.Env) error {
	fs := cli.NewFlags("ski-render", cli.Manual(docSource), env)
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
	res := &settings.Resolver{Env: env.Environ, Warn: cli.Warner("ski-render", env.Stderr)}
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
		Describe: func(path string) string {
			d, _ := skill.ReadDescription(path)
			return d
		},
		MaxLine: *maxLine,
	}, env.Stdin, env.Stdout)
}

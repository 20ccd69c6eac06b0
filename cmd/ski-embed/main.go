package main

import (
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/embedcmd"
)

func main() {
	env := cli.OSEnv()
	p := embedcmd.Program{HandOff: func() error { return embedcmd.Exec(embedcmd.RuntimeBinary, env.Args) }}
	os.Exit(cli.Main("ski-embed", env, p.Run))
}

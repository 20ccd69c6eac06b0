package main

import (
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/embedcmd"
	"github.com/skill-inject/ski/internal/embedsrv"
)

func main() {
	env := cli.OSEnv()
	p := embedcmd.Program{HandOff: func() error { return embedcmd.Exec(embedsrv.ServerBinary, env.Args) }}
	os.Exit(cli.Main("ski-embed", env, p.Run))
}

package main

import (
	_ "embed"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/embedcmd"
	"github.com/skill-inject/ski/internal/embedsrv"
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

func main() {
	env := cli.OSEnv()
	p := embedcmd.Program{Manual: cli.Manual(docSource), HandOff: func() error { return embedcmd.Exec(embedsrv.ServerBinary, env.Args, env.Environ.List()) }}
	os.Exit(cli.Main("ski-embed", env, p.Run))
}

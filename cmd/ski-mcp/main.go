package main

import (
	_ "embed"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/mcpcmd"
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

func main() {
	os.Exit(cli.Main(mcpcmd.Name, cli.OSEnv(), func(env cli.Env) error { return mcpcmd.Run(env, cli.Manual(docSource)) }))
}

package main

import (
	_ "embed"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/front"
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

func main() {
	os.Exit(cli.Main("ski", cli.OSEnv(), func(env cli.Env) error { return front.Run(env, cli.Manual(docSource)) }))
}

package main

import (
	_ "embed"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/ledgercmd"
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

const name = ledgercmd.Name

func main() { os.Exit(cli.Main(name, cli.OSEnv(), run)) }

func run(env cli.Env) error { return ledgercmd.Run(env, docSource) }

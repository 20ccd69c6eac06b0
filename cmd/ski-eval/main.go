package main

import (
	_ "embed"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/evalcmd"
	_ "github.com/skill-inject/ski/internal/onnx" // registers the ONNX models
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

func main() {
	os.Exit(cli.Main("ski-eval", cli.OSEnv(), func(env cli.Env) error {
		o, err := evalcmd.Parse(env, cli.Manual(docSource))
		if err != nil {
			return err
		}
		return evalcmd.Run(env, o)
	}))
}

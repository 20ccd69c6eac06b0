package main

import (
	_ "embed"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/embedcmd"
	_ "github.com/skill-inject/ski/internal/onnx" // registers the ONNX models
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

func main() {
	os.Exit(cli.Main("ski-embed", cli.OSEnv(), embedcmd.Program{Manual: cli.Manual(docSource), Fetch: fetchModel}.Run))
}

// Ski-embed-onnx is ski-embed with the model runtime (ONNX Runtime and the
// tokenizer) linked in. ski-embed hands it every run that loads a model in
// process: index builds, refreshes, the embed server, --fetch, and queries
// when no server answers. It takes the same flags; run it directly only to
// debug.
package main

import (
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/embedcmd"
	_ "github.com/skill-inject/ski/internal/onnx" // registers the ONNX models
)

func main() {
	os.Exit(cli.Main("ski-embed", cli.OSEnv(), embedcmd.Program{Fetch: fetchModel}.Run))
}

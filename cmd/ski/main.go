// Command ski is the front of the ski stages; see doc.go.
package main

import (
	_ "embed"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/front"
)

//go:embed usage.txt
var usage string

func main() {
	os.Exit(cli.Main("ski", cli.OSEnv(), func(env cli.Env) error { return front.Run(env, usage) }))
}

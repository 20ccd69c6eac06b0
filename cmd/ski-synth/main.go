package main

import (
	_ "embed"
	"fmt"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/synth"
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

func main() { os.Exit(cli.Main("ski-synth", cli.OSEnv(), run)) }

func run(env cli.Env) error {
	fs := cli.NewFlags("ski-synth", cli.Manual(docSource), env)
	from := fs.String("from", "", "real skills `dir` to learn lengths and vocabulary from (required)")
	count := fs.Int("count", 1000, "skills to write, `n`")
	out := fs.String("out", "", "`dir` to write the catalog into (required)")
	seed := fs.Uint64("seed", 1, "random `seed`")
	if err := cli.ParseNoArgs(fs, env); err != nil {
		return err
	}
	if *from == "" || *out == "" || *count <= 0 {
		return cli.Usagef("--from, --out and a positive --count are required")
	}
	m, err := synth.Learn(*from)
	if err != nil {
		return err
	}
	if err := synth.Write(*out, m.Generate(*count, *seed)); err != nil {
		return fmt.Errorf("write catalog: %w", err)
	}
	fmt.Fprintf(env.Stderr, "ski-synth: %d skills in %s\n", *count, *out)
	return nil
}

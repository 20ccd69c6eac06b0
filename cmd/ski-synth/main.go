// Ski-synth writes a deterministic synthetic skill catalog for scale
// benchmarks: COUNT skills whose descriptions and bodies have the lengths
// and vocabulary of the real catalog under --from, none of its text copied.
//
// Usage:
//
//	ski-synth --from ../shared/skills-corpus --count 10000 --out /tmp/catalog-10k [--seed 1]
//
// The same arguments always write the same files. Exit status: 0 written,
// 1 error, 2 usage.
package main

import (
	"fmt"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/synth"
)

func main() { os.Exit(cli.Main("ski-synth", cli.OSEnv(), run)) }

func run(env cli.Env) error {
	fs := cli.NewFlags("ski-synth", usage, env)
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

const usage = `Ski-synth writes a deterministic synthetic skill catalog for scale
benchmarks: --count skills whose descriptions and bodies have the lengths
and vocabulary of the real catalog under --from (each text a random walk
over the real texts' word pairs, none copied). The same arguments always
write the same files.

Usage:
  ski-synth --from ../shared/skills-corpus --count 10000 --out DIR [--seed 1]

Exit status:
  0 written, 1 error, 2 usage.`

/*
Ski-synth writes a deterministic synthetic skill catalog for scale
benchmarks: --count skills whose descriptions and bodies have the lengths
and vocabulary of the real catalog under --from (each text a random walk
over the real texts' word pairs, none copied). The same arguments always
write the same files.

# Usage

	ski-synth --from ../shared/skills-corpus --count 10000 --out DIR [--seed 1]

# Exit status

	0 written, 1 error, 2 usage.
*/
package main

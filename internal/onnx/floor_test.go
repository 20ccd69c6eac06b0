//go:build !ski_lexical_only

package onnx

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/builder"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/scan"
)

// BenchmarkBuildAgainstFloor measures, in one run, the floor of an index
// build — the fastest raw forward pass of the model over every skill's
// text (tokenised beforehand, sorted by length, the best of several batch
// sizes, with the build's threads) — and a full build from nothing by a
// builder (scan, lexical index, model through the embedding cache, index
// written), and reports their ratio.
//
//	SKI_BENCH_ROOT=../shared/skills-corpus go test ./internal/onnx -run '^$' -bench BuildAgainstFloor -benchtime 1x
func BenchmarkBuildAgainstFloor(b *testing.B) {
	root := os.Getenv("SKI_BENCH_ROOT")
	if root == "" {
		root = filepath.Join("..", "..", "..", "shared", "skills-corpus")
	}
	root, _ = filepath.Abs(root)
	model := os.Getenv("SKI_BENCH_MODEL")
	if model == "" {
		model = "bge-small-en-v1.5-q"
	}
	const threads = 2 // what a builder uses
	m, err := embed.Lookup(model)
	if err != nil {
		b.Fatal(err)
	}
	so := scan.Options{Host: "claude", Roots: []string{root}, Home: b.TempDir()}
	found, err := scan.Scan(so)
	if err != nil {
		b.Fatal(err)
	}
	e, err := Open(m, embed.Env{Environ: environ.FromOS(), Threads: threads})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	emb := e.(*Embedder)
	var rows [][]int64
	for _, s := range found.Skills {
		rows = append(rows, emb.Tokenize(index.DocumentText(s, index.ReadBody(s.Path)), embed.Document))
	}
	sort.SliceStable(rows, func(i, j int) bool { return len(rows[i]) < len(rows[j]) })
	for b.Loop() {
		floor, best := time.Duration(0), 0
		for _, size := range []int{1, 2, 4, 8, 16} {
			start := time.Now()
			for at := 0; at < len(rows); at += size {
				if _, err := emb.run(rows[at:min(at+size, len(rows))]); err != nil {
					b.Fatal(err)
				}
			}
			took := time.Since(start)
			b.Logf("forward pass, batches of %2d: %v", size, took.Round(time.Millisecond))
			if floor == 0 || took < floor {
				floor, best = took, size
			}
		}
		p := builder.Project{Scan: so, Model: model, CacheDir: b.TempDir()}
		start := time.Now()
		bemb, err := Open(m, embed.Env{Environ: environ.FromOS(), Threads: threads})
		if err != nil {
			b.Fatal(err)
		}
		res, err := builder.Run(p, builder.Options{Embedder: bemb, Warn: func(s string) { b.Log(s) }})
		build := time.Since(start)
		bemb.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%d skills, %d texts embedded: floor %v (batches of %d), full build %v, ratio %.2f",
			res.Count, res.Stats.Embedded, floor.Round(time.Millisecond), best, build.Round(time.Millisecond), float64(build)/float64(floor))
		b.ReportMetric(float64(floor.Milliseconds()), "floor-ms")
		b.ReportMetric(float64(build.Milliseconds()), "build-ms")
		b.ReportMetric(float64(build)/float64(floor), "build/floor")
	}
}

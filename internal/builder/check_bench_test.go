package builder

import (
	"os"
	"testing"

	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/vecfile"
)

// BenchmarkCheck checks the index at SKI_BENCH_INDEX against the skills at
// SKI_BENCH_ROOT when nothing changed, as a session start's
// ski-embed --refresh --background does (every checksum included):
//
//	SKI_BENCH_INDEX=... SKI_BENCH_ROOT=... go test ./internal/builder -run '^$' -bench Check
func BenchmarkCheck(b *testing.B) {
	path, root := os.Getenv("SKI_BENCH_INDEX"), os.Getenv("SKI_BENCH_ROOT")
	if path == "" || root == "" {
		b.Skip("SKI_BENCH_INDEX and SKI_BENCH_ROOT are not set")
	}
	so := scan.Options{Host: "claude", Roots: []string{root}}
	h, err := readModel(path)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if s := Check(path, h, so, true, func(m string) { b.Fatal(m) }); s != Current {
			b.Fatalf("index %s", s)
		}
	}
}

func readModel(path string) (string, error) {
	h, err := vecfile.ReadHeader(path)
	return h.Model, err
}

package builder

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/embed"

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

// BenchmarkWatchedCheck is what the embed server's watcher spends, per
// project and look, to find that nothing changed once it watches the
// folders of the catalog at SKI_BENCH_ROOT ("look"), and what watching
// them all costs once ("watch"). The index is a lexical one, built first:
//
//	SKI_BENCH_ROOT=... go test ./internal/builder -run '^$' -bench WatchedCheck
func BenchmarkWatchedCheck(b *testing.B) {
	root := os.Getenv("SKI_BENCH_ROOT")
	if root == "" {
		b.Skip("SKI_BENCH_ROOT is not set")
	}
	p := Project{Scan: scan.Options{Host: "claude", Roots: []string{root}, Home: b.TempDir()},
		Model: embed.LexicalID, CacheDir: b.TempDir()}
	if _, err := Run(p, Options{Embedder: embed.NewLexical(), Warn: func(m string) { b.Log(m) }}); err != nil {
		b.Fatal(err)
	}
	starts := 0
	w := &Watcher{Recheck: 24 * time.Hour, Start: func(Project) bool { starts++; return true }}
	spec, _ := json.Marshal(p)
	w.Add(spec)
	w.checkDue(time.Now())
	if w.projects[string(spec)].folders == nil {
		b.Fatal("the catalog's folders are not watched (listings partial: folders changed in the last second?)")
	}
	b.Run("look", func(b *testing.B) {
		n := starts
		for b.Loop() {
			w.checkDue(time.Now())
		}
		if starts != n {
			b.Fatalf("nothing changed, yet %d builders started", starts-n)
		}
	})
	b.Run("watch", func(b *testing.B) {
		for b.Loop() {
			if set := watchFolders(p, p.IndexPath()); set == nil {
				b.Fatal("not watched")
			} else {
				set.Close()
			}
		}
	})
	w.closeAll()
}

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/builder"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/indexfile"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
)

// BenchmarkMCPSearch measures skill_search as a host sees it: a JSON-RPC
// round trip through a warm ski-mcp, the real model in the embed server,
// the whole shared corpus indexed. It reports the p50 and p90 of the round
// trip and ski-mcp's peak RSS.
//
//	go test ./e2e -run '^$' -bench MCPSearch -benchtime 200x
func BenchmarkMCPSearch(b *testing.B) {
	w := corpusWorld(b)
	w.sessionStart("claude")
	benchSearch(b, w)
}

// benchSearch times skill_search round trips through a ski-mcp in the
// world, once its embed server runs.
func benchSearch(b *testing.B, w *world) {
	w.hook("claude", "session-start", []byte(`{"session_id":"bench","source":"startup","cwd":"`+w.home+`"}`))
	if w.serverPID(60*time.Second) == 0 {
		b.Fatal("no embed server came up")
	}
	c := w.mcp()
	c.initialize("2025-06-18")
	prompts := devPositives(b)
	call := func(id int) time.Duration {
		p := prompts[id%len(prompts)]
		start := time.Now()
		r := c.call(id, "tools/call", map[string]any{"name": "skill_search", "arguments": map[string]any{"query": p}})
		d := time.Since(start)
		if text, isErr := toolText(b, r); isErr || strings.Contains(text, "lexical") {
			b.Fatalf("%q: %s", p, text)
		}
		return d
	}
	for i := 0; i < 20; i++ { // warm: the server holds the index, caches are full
		call(1_000_000 + i)
	}
	var times []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		times = append(times, call(i+1))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "p90-ms")
	b.ReportMetric(float64(peakRSS(b, c.cmd.Process.Pid))/1024, "rss-MB")
}

// peakRSS is a process's peak resident set, in kB (VmHWM).
func peakRSS(b *testing.B, pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb
		}
	}
	b.Fatal("no VmHWM")
	return 0
}

// BenchmarkMCPSearch10k is BenchmarkMCPSearch at 10,000 skills (ski-synth
// from the shared corpus). Their vectors are hashed (type hashed), which
// ranks as fast as real ones and builds in seconds; the queries go through
// the real model in the embed server, which ranks against the index it
// holds.
func BenchmarkMCPSearch10k(b *testing.B) {
	w := newWorld(b)
	catalog := w.synthServed(10000)
	w.skills = catalog
	so := scan.Options{Host: record.HostClaude, Cwd: w.home, Roots: []string{catalog}, Home: w.home}
	found, err := scan.Scan(so)
	if err != nil || len(found.Skills) != 10000 {
		b.Fatalf("scan: %d skills, %v", len(found.Skills), err)
	}
	m, _ := embed.Lookup("bge-small-en-v1.5-q")
	idx, _, err := index.Build(found.Skills, nil, hashed{m}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if idx.Header.Stamp, err = scan.Stamp(so); err != nil {
		b.Fatal(err)
	}
	p := builder.Project{Scan: so, Model: m.ID, CacheDir: filepath.Join(w.home, ".cache", "ski")}
	os.MkdirAll(filepath.Dir(p.IndexPath()), 0o700)
	if err := indexfile.Write(p.IndexPath(), idx); err != nil {
		b.Fatal(err)
	}
	benchSearch(b, w)
}

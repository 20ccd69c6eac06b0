package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/index"
	"github.com/skill-inject/ski/internal/indexfile"
	"github.com/skill-inject/ski/internal/rank"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
)

// hashed is an embedder with the default model's identity whose vectors
// are unit vectors drawn from a hash of each text: an index of thousands
// of skills for the default model, built in seconds, to rank real queries
// against.
type hashed struct{ m embed.Model }

func (h hashed) Model() embed.Model { return h.m }
func (h hashed) Close() error       { return nil }
func (h hashed) Embed(texts []string, _ embed.Purpose) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, h.m.Dim)
		seed := sha256.Sum256([]byte(t))
		norm := 0.0
		for j := range v {
			x := binary.LittleEndian.Uint32(seed[(4*j)%32:]) ^ uint32(j*2654435761)
			v[j] = float32(int32(x)) / math.MaxInt32
			norm += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
		out[i] = v
	}
	return out, nil
}

// rchar is how many bytes process pid has read so far.
func rchar(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "io"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no rchar in /proc/%d/io", pid)
	return 0
}

// synthServed readies the world for the real model and the embed server,
// and writes a catalog of n skills (ski-synth from the shared corpus).
func (w *world) synthServed(n int) string {
	w.t.Helper()
	realModel(w.t, w)
	w.extra = append(w.extra, "SKI_EMBED_SERVER=1")
	catalog := w.t.TempDir()
	if r := w.stage(nil, "ski-synth", "--from", filepath.Join(repo, "..", "shared", "skills-corpus"), "--count", strconv.Itoa(n), "--out", catalog); r.code != 0 {
		w.t.Fatalf("ski-synth: %+v", r)
	}
	return catalog
}

// With the embed server running, ski-rank has it rank against an index of
// rank.RemoteFrom bytes or more, which the server reads once and keeps:
// the candidates are byte for byte those ski-rank makes reading the index
// itself.
func TestLargeIndexRankedByServer(t *testing.T) {
	w := newWorld(t)
	catalog := w.synthServed(4500)
	found, err := scan.Scan(scan.Options{Host: record.HostClaude, Roots: []string{catalog}})
	if err != nil || len(found.Skills) != 4500 {
		t.Fatalf("scan: %d skills, %v", len(found.Skills), err)
	}
	m, err := embed.Lookup("bge-small-en-v1.5-q")
	if err != nil {
		t.Fatal(err)
	}
	idx, _, err := index.Build(found.Skills, nil, hashed{m}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(t.TempDir(), "big.skv")
	if err := indexfile.Write(big, idx); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(big)
	if err != nil || st.Size() < rank.RemoteFrom {
		t.Fatalf("the index is %d bytes, want at least %d: %v", st.Size(), rank.RemoteFrom, err)
	}

	if r := w.stage(nil, "ski-embed", "--serve", "--detach"); r.code != 0 {
		t.Fatalf("serve: %+v", r)
	}
	pid := w.serverPID(20 * time.Second)
	if pid == 0 {
		t.Fatal("no server came up")
	}
	event := withPrompt(t, w.payload("claude-prompt.json"), "write a playwright test for the checkout page")
	q := w.stage(event, "ski-embed", "--query", "--event", "--index", big)
	if q.code != 0 || !strings.Contains(q.stdout, `"kind":"query"`) {
		t.Fatalf("query: %+v", q)
	}
	query := []byte(q.stdout)
	before := rchar(t, pid)
	asked := w.stage(query, "ski-rank", "--index", big)
	read := rchar(t, pid) - before
	if asked.code != 0 || strings.Count(asked.stdout, "\n") != 10 {
		t.Fatalf("ski-rank with the server: %+v", asked)
	}
	if read < st.Size() {
		t.Fatalf("the server read %d bytes while ski-rank ran, not the %d-byte index: it did not rank", read, st.Size())
	}
	before = rchar(t, pid)
	again := w.stage(query, "ski-rank", "--index", big)
	if again.stdout != asked.stdout || rchar(t, pid)-before >= st.Size() {
		t.Fatalf("a second ranking: the same lines %v, the server read %d bytes again", again.stdout == asked.stdout, rchar(t, pid)-before)
	}

	w.extra = append(w.extra, "SKI_EMBED_SERVER=0")
	itself := w.stage(query, "ski-rank", "--index", big)
	if itself.code != 0 || !bytes.Equal([]byte(itself.stdout), []byte(asked.stdout)) {
		t.Fatalf("ski-rank reading the index itself:\n%s\nasking the server:\n%s", itself.stdout, asked.stdout)
	}
}

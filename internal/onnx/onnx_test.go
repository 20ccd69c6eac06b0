//go:build !ski_lexical_only

package onnx

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/environ"
)

// required reports whether the real-model tests must run (CI and
// scripts/test.sh set SKI_REQUIRE_MODEL=1): then a missing model or runtime
// fails the test instead of skipping it.
func required() bool { return os.Getenv("SKI_REQUIRE_MODEL") == "1" || os.Getenv("CI") == "true" }

func open(t *testing.T, id string) *Embedder {
	t.Helper()
	m, err := embed.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(m, embed.Env{Environ: environ.FromOS()})
	if err != nil {
		if required() {
			t.Fatalf("real model required: %v", err)
		}
		t.Skipf("model not installed (run scripts/setup.sh): %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e.(*Embedder)
}

var models = []string{"bge-small-en-v1.5-q", "bge-small-en-v1.5", "all-MiniLM-L6-v2-q", "all-MiniLM-L6-v2"}

func sentences(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "parity", "sentences.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	// Over-long inputs: truncated to the model's limit, never an error.
	out = append(out, strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 200))
	out = append(out, strings.Repeat("東京🚀 ", 700))
	return out
}

func cos(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return d / math.Sqrt(na*nb)
}

func TestEmbedBasics(t *testing.T) {
	for _, id := range models {
		t.Run(id, func(t *testing.T) {
			e := open(t, id)
			texts := []string{"write a blameless postmortem for the outage", "draft an incident review after the downtime",
				"Quarterly revenue grew by 12 percent.", "", "before\x00after", "bad \xff utf-8"}
			vecs, err := e.Embed(texts, embed.Query)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vecs {
				if len(v) != 384 || math.Abs(embed.Dot(v, v)-1) > 1e-4 {
					t.Fatalf("text %d: dim %d, norm² %v", i, len(v), embed.Dot(v, v))
				}
			}
			if near, far := cos(vecs[0], vecs[1]), cos(vecs[0], vecs[2]); near <= far+0.1 {
				t.Errorf("paraphrase %.3f should clearly beat unrelated %.3f", near, far)
			}
			// One at a time gives what a batch gives.
			one, _ := e.Embed(texts[2:3], embed.Query)
			if c := cos(one[0], vecs[2]); c < 0.9999 {
				t.Errorf("batched and single embedding differ: cos %.6f", c)
			}
			// The query prefix is applied to queries only.
			doc, _ := e.Embed(texts[:1], embed.Document)
			c := cos(doc[0], vecs[0])
			if e.model.QueryPrefix != "" && c > 0.999 || e.model.QueryPrefix == "" && c < 0.9999 {
				t.Errorf("prefix %q: query vs document cos %.5f", e.model.QueryPrefix, c)
			}
			if got := e.Tokenize(strings.Repeat("word ", 2000), embed.Document); len(got) != e.model.MaxTokens {
				t.Errorf("long text: %d tokens, want truncation to %d", len(got), e.model.MaxTokens)
			}
		})
	}
}

// reference runs testdata/parity/reference.py with the Python tooling
// scripts/test-tools.sh installs.
func reference(t *testing.T, e *Embedder, texts []string, vectors bool) (ids [][]int64, vecs [][]float32) {
	t.Helper()
	python := os.Getenv("SKI_PYTHON")
	if python == "" {
		if required() {
			t.Fatal("SKI_PYTHON is not set (scripts/test.sh sets it from scripts/test-tools.sh)")
		}
		t.Skip("SKI_PYTHON not set: run scripts/test-tools.sh and export its output")
	}
	req, _ := json.Marshal(map[string]any{
		"model": filepath.Join(e.dir, "model.onnx"), "tokenizer": filepath.Join(e.dir, "tokenizer.json"),
		"pooling": e.model.Pooling, "max_tokens": e.model.MaxTokens, "texts": texts, "vectors": vectors,
	})
	cmd := exec.Command(python, filepath.Join("..", "..", "testdata", "parity", "reference.py"))
	cmd.Stdin = bytes.NewReader(req)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference.py: %v\n%s", err, stderr.String())
	}
	var res struct {
		IDs     [][]int64   `json:"ids"`
		Vectors [][]float32 `json:"vectors"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("reference.py output: %v", err)
	}
	return res.IDs, res.Vectors
}

// The token ids equal those of Hugging Face's tokenizers on accents, CJK,
// emoji, code and over-long inputs.
func TestTokenizerParity(t *testing.T) {
	texts := sentences(t)
	for _, id := range []string{"bge-small-en-v1.5-q", "all-MiniLM-L6-v2-q"} {
		t.Run(id, func(t *testing.T) {
			e := open(t, id)
			want, _ := reference(t, e, texts, false)
			for i, text := range texts {
				got := e.Tokenize(text, embed.Document)
				if !slicesEqual(got, want[i]) {
					t.Errorf("text %d %.40q:\n got %v\nwant %v", i, text, head(got), head(want[i]))
				}
			}
		})
	}
}

// ski's vectors match the reference pipeline's on the same ONNX file.
func TestVectorParity(t *testing.T) {
	texts := sentences(t)
	for _, id := range models {
		t.Run(id, func(t *testing.T) {
			e := open(t, id)
			prefixed := make([]string, len(texts))
			for i, s := range texts {
				prefixed[i] = e.model.QueryPrefix + s
			}
			_, want := reference(t, e, prefixed, true)
			got, err := e.Embed(texts, embed.Query)
			if err != nil {
				t.Fatal(err)
			}
			worst := 1.0
			for i := range texts {
				worst = math.Min(worst, cos(got[i], want[i]))
			}
			t.Logf("%s: %d sentences, min cosine with the reference %.7f", id, len(texts), worst)
			if worst < 0.999 {
				t.Errorf("min cosine %.6f < 0.999", worst)
			}
		})
	}
}

// How far the quantised models stray from full precision on the parity set.
func TestQuantisedAgainstFull(t *testing.T) {
	texts := sentences(t)
	for _, pair := range [][2]string{{"bge-small-en-v1.5-q", "bge-small-en-v1.5"}, {"all-MiniLM-L6-v2-q", "all-MiniLM-L6-v2"}} {
		q, f := open(t, pair[0]), open(t, pair[1])
		qv, err1 := q.Embed(texts, embed.Query)
		fv, err2 := f.Embed(texts, embed.Query)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		worst, sum, below := 1.0, 0.0, 0
		for i := range texts {
			c := cos(qv[i], fv[i])
			worst, sum = math.Min(worst, c), sum+c
			if c < 0.99 {
				below++
				t.Logf("  %s %.4f on %.50q", pair[0], c, texts[i])
			}
		}
		t.Logf("%s vs %s: min cosine %.4f, mean %.4f, %d of %d below 0.99", pair[0], pair[1], worst, sum/float64(len(texts)), below, len(texts))
		if worst < 0.95 {
			t.Errorf("%s strays too far from %s: min cosine %.4f", pair[0], pair[1], worst)
		}
	}
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func head(ids []int64) []int64 {
	if len(ids) > 24 {
		return ids[:24]
	}
	return ids
}

// BenchmarkQuery is the in-process cost of embedding one short prompt.
func BenchmarkQuery(b *testing.B) {
	for _, id := range []string{"bge-small-en-v1.5-q", "all-MiniLM-L6-v2-q", "bge-small-en-v1.5"} {
		b.Run(id, func(b *testing.B) {
			m, _ := embed.Lookup(id)
			e, err := Open(m, embed.Env{Environ: environ.FromOS()})
			if err != nil {
				b.Skip(err)
			}
			defer e.Close()
			texts := []string{"the helm chart fails to lint because of a missing values key"}
			for i := 0; i < b.N; i++ {
				if _, err := e.Embed(texts, embed.Query); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpen is the cost of loading the tokenizer and creating the
// session, which a new process pays once.
func BenchmarkOpen(b *testing.B) {
	m, _ := embed.Lookup("bge-small-en-v1.5-q")
	for i := 0; i < b.N; i++ {
		e, err := Open(m, embed.Env{Environ: environ.FromOS()})
		if err != nil {
			b.Skip(err)
		}
		e.Close()
	}
}

// The optimised copy is saved as a graph and a data file, nothing else is
// left in the cache, and a session loaded from them embeds bit for bit like
// the session that made them.
func TestOptimisedCopy(t *testing.T) {
	m, _ := embed.Lookup("bge-small-en-v1.5-q")
	made := open(t, m.ID) // skips or fails when the model is missing
	cache := t.TempDir()
	src := filepath.Join(made.dir, "model.onnx")
	// A copy left by an older runtime or cache layout is removed.
	stale := filepath.Join(cache, "models", filepath.Base(made.dir)+"-0123456789abcdef.onnx")
	if err := os.MkdirAll(filepath.Dir(stale), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{stale, stale + ".data"} {
		if err := os.WriteFile(f, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	first, err := newSession(src, cache, sessionOptions{prepack: true})
	if err != nil {
		t.Fatal(err)
	}
	second, err := newSession(src, cache, sessionOptions{prepack: true})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "models", "*"))
	opt, _ := optimisedPath(src, cache)
	if len(files) != 2 || files[0] != opt || files[1] != opt+".data" {
		t.Fatalf("cache holds %v, want %s and its .data", files, opt)
	}
	a, b := *made, *made
	a.sess, b.sess = first, second
	defer first.Destroy()
	defer second.Destroy()
	for i, text := range sentences(t) {
		va, err1 := a.Embed([]string{text}, embed.Query)
		vb, err2 := b.Embed([]string{text}, embed.Query)
		if err1 != nil || err2 != nil || !slices.Equal(va[0], vb[0]) {
			t.Fatalf("text %d: vectors differ (%v, %v)", i, err1, err2)
		}
	}
}

// A process that opens a model for one query skips packing the weights only
// for quantised models, and their vectors are the same bit for bit.
func TestOneQuerySameVectors(t *testing.T) {
	for _, id := range models {
		m, _ := embed.Lookup(id)
		if packs := prepack(m, embed.Env{OneQuery: true}); packs == m.Quantised {
			t.Errorf("%s: prepack for one query %v, quantised %v", id, packs, m.Quantised)
		}
		if !prepack(m, embed.Env{}) {
			t.Errorf("%s: no prepacking outside one query", id)
		}
		if !m.Quantised {
			continue
		}
		packed := open(t, id)
		e, err := Open(m, embed.Env{Environ: environ.FromOS(), OneQuery: true})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		for i, text := range sentences(t) {
			va, err1 := packed.Embed([]string{text}, embed.Query)
			vb, err2 := e.Embed([]string{text}, embed.Query)
			if err1 != nil || err2 != nil || !slices.Equal(va[0], vb[0]) {
				t.Fatalf("%s text %d: vectors differ without prepacking (%v, %v)", id, i, err1, err2)
			}
		}
	}
}

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/indexfile"
)

// realModel points the world at the model and runtime scripts/setup.sh
// installed for the user running the tests.
func realModel(t testing.TB, w *world) {
	t.Helper()
	// Where the set-up installed them (TestMain pointed these at it).
	env := environ.FromOS()
	lib := env.OnnxRuntime
	model := filepath.Join(env.ModelDir, "bge-small-en-v1.5-q", "model.onnx")
	for _, f := range []string{lib, model} {
		if _, err := os.Stat(f); err != nil {
			if os.Getenv("SKI_REQUIRE_MODEL") == "1" || os.Getenv("CI") == "true" {
				t.Fatalf("real model required: %v", err)
			}
			t.Skipf("run scripts/setup.sh first: %v", err)
		}
	}
	w.extra = append(w.extra, "SKI_MODEL_DIR="+env.ModelDir, "ONNXRUNTIME_SHARED_LIBRARY_PATH="+lib)
}

// The hook ranks with the real model and says so in the index it builds.
func TestHookWithRealModel(t *testing.T) {
	w := newWorld(t)
	realModel(t, w)
	w.sessionStart("claude")
	ctx := claudeContext(t, w.hook("claude", "prompt", w.payload("claude-prompt.json")))
	if !strings.Contains(ctx, `"postmortem"`) {
		t.Fatalf("real model: %s", ctx)
	}
	// The model's index, and the lexical one the builder wrote first.
	files, _ := filepath.Glob(filepath.Join(w.home, ".cache", "ski", "index", "*.skv"))
	models := map[string]string{}
	for _, f := range files {
		idx, err := indexfile.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		models[idx.Header.Model] = idx.Header.Embedder
	}
	if len(files) != 2 || models["bge-small-en-v1.5-q"] != "onnx" || models["lexical-v1"] != "lexical" {
		t.Fatalf("indexes %v: models %v", files, models)
	}
	w.sessionStart("opencode")
	for _, p := range []string{"create a helm chart for our api service with configurable replicas and ingress",
		"clean up this messy csv: duplicate rows and broken dates"} {
		out := w.hook("opencode", "prompt", withPrompt(t, w.payload("opencode-prompt.json"), p))
		if !strings.Contains(out, `"skills":["`) {
			t.Errorf("%q: %s", p, out)
		}
	}
	if out := w.hook("claude", "prompt", withPrompt(t, w.payload("claude-prompt.json"), "what's the capital of Australia")); out != "" {
		t.Errorf("chit-chat injected: %s", out)
	}
}

// Without the model the stage falls back to the lexical embedder, warns
// once, and the index records it.
func TestFallbackToLexical(t *testing.T) {
	w := newWorld(t)
	w.extra = append(w.extra, "SKI_MODEL_DIR="+t.TempDir())
	idx := filepath.Join(t.TempDir(), "i.skv")
	scan := w.stage(nil, "ski-scan", "--root", w.skills)
	r := w.stage([]byte(scan.stdout), "ski-embed", "--index", idx)
	if r.code != 0 || strings.Count(r.stderr, "warning:") != 1 || !strings.Contains(r.stderr, "using the lexical embedder") ||
		!strings.Contains(r.stdout, `"model":"lexical-v1"`) {
		t.Fatalf("fallback: %+v", r)
	}
}

// ski-embed --fetch downloads a model from a Hugging Face endpoint.
func TestFetchFromLoopback(t *testing.T) {
	w := newWorld(t)
	realModel(t, w)
	src := filepath.Join(environ.FromOS().ModelDir, "all-MiniLM-L6-v2-q")
	srv := hfServer(t, "Xenova/all-MiniLM-L6-v2", map[string]string{
		"onnx/model_quantized.onnx": filepath.Join(src, "model.onnx"),
		"tokenizer.json":            filepath.Join(src, "tokenizer.json"),
	})
	w.extra = []string{"HF_ENDPOINT=" + srv}
	r := w.stage(nil, "ski-embed", "--fetch", "all-MiniLM-L6-v2-q")
	if r.code != 0 {
		t.Fatalf("fetch: %+v", r)
	}
	got := filepath.Join(w.home, ".local", "share", "ski", "models", "all-MiniLM-L6-v2-q", "model.onnx")
	if st, err := os.Stat(got); err != nil || st.Size() != 22972370 {
		t.Fatalf("fetched model: %v", err)
	}
	// A second fetch finds the files in place.
	if r := w.stage(nil, "ski-embed", "--fetch", "all-MiniLM-L6-v2-q"); r.code != 0 || !strings.Contains(r.stderr, "up to date") {
		t.Fatalf("second fetch: %+v", r)
	}
	// An unknown repository on the endpoint: a clear error.
	r = w.stage(nil, "ski-embed", "--fetch", "bge-small-en-v1.5-q")
	if r.code != 1 || !strings.Contains(r.stderr, "404") || !strings.Contains(r.stderr, "Xenova/bge-small-en-v1.5") {
		t.Fatalf("missing repo: %+v", r)
	}
}

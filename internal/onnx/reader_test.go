//go:build !ski_lexical_only

package onnx

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/reader"
)

// readerFixtures are research/reader/train.py's fixtures of the shipped
// reader: prompts with their candidates' texts, and the logits PyTorch, the
// fp32 graph and the int8 graph (each prompt's skills in one batch, as
// Logits runs them) gave.
type readerFixtures struct {
	Groups []struct {
		Prompt string    `json:"prompt"`
		Skills []string  `json:"skills"`
		Torch  []float64 `json:"torch"`
		FP32   []float64 `json:"fp32"`
		Int8   []float64 `json:"int8"`
	} `json:"groups"`
	MaxDiff float64 `json:"max_diff_torch_fp32"`
}

func openReader(t *testing.T) *Reader {
	t.Helper()
	r, err := OpenReader(reader.Files(), embed.Env{Environ: environ.FromOS()}, 1)
	if err != nil {
		if required() {
			t.Fatalf("the reader is required: %v", err)
		}
		t.Skipf("the reader is not installed (run scripts/setup.sh): %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// The shipped int8 reader, run by ski, gives the logits the training
// script's ONNX Runtime gave for the fixtures (within 1e-4), and the
// fixtures say the fp32 graph matched PyTorch within 1e-4 (train.py fails
// otherwise).
func TestReaderMatchesTraining(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "models", reader.Files().ID+".fixtures.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx readerFixtures
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Groups) == 0 || fx.MaxDiff > 1e-4 {
		t.Fatalf("fixtures: %d groups, fp32 against PyTorch %.2g", len(fx.Groups), fx.MaxDiff)
	}
	r := openReader(t)
	worst := 0.0
	for _, g := range fx.Groups {
		got, err := r.Logits(g.Prompt, g.Skills)
		if err != nil {
			t.Fatal(err)
		}
		for i := range g.Skills {
			worst = math.Max(worst, math.Abs(float64(got[i])-g.Int8[i]))
			if d := math.Abs(float64(got[i]) - g.Int8[i]); d > 1e-4 {
				t.Errorf("%q with %q: logit %.6f, training's int8 graph %.6f", g.Prompt, g.Skills[i], got[i], g.Int8[i])
			}
		}
	}
	t.Logf("%d groups, largest difference %.2g", len(fx.Groups), worst)
}

// Bad input reads as input: empty, invalid UTF-8, a NUL, very long texts.
func TestReaderOddInput(t *testing.T) {
	r := openReader(t)
	long := string(make([]byte, 100000))
	got, err := r.Score("fix \xff\x00 the chart", []string{"", "helm chart: lint and package", long})
	if err != nil || len(got) != 3 {
		t.Fatalf("%v, %v", got, err)
	}
	for _, b := range got {
		if math.IsNaN(b) || b < 0 || b > 1 {
			t.Errorf("belief %v", b)
		}
	}
	if out, err := r.Score("x", nil); err != nil || len(out) != 0 {
		t.Errorf("no skills: %v, %v", out, err)
	}
}

// A reader that cannot be opened is no Model at all: a nil *Reader in a
// non-nil interface would pass callers' nil checks and panic on Close.
func TestOpenMissingReaderIsNil(t *testing.T) {
	m, err := reader.Open(embed.Env{Environ: environ.Env{ModelDir: t.TempDir()}})
	if err == nil || m != nil {
		t.Fatalf("no reader installed: model %#v, error %v", m, err)
	}
}

//go:build !ski_lexical_only

package onnx

// #cgo LDFLAGS: -L${SRCDIR}/../../.cache/lib
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/daulet/tokenizers"
	"github.com/tidwall/sjson"
	ort "github.com/yalue/onnxruntime_go"

	"github.com/skill-inject/ski/internal/embed"
)

// batchSize bounds how many texts run through the model at once. Quantised
// models run one text at a time: their dynamic quantisation scales each
// input tensor as a whole, so padding and neighbours in a batch would change
// a text's vector.
const batchSize = 16

// Embedder runs one ONNX model.
type Embedder struct {
	model embed.Model
	dir   string
	tok   *tokenizers.Tokenizer
	sess  *ort.DynamicAdvancedSession
}

// Check says whether model m looks installed, without loading anything:
// its files are where they belong, with the right sizes, and a runtime
// library can be found.
func Check(m embed.Model, env embed.Env) error {
	if err := checkFiles(m, embed.ModelDir(m, env.Environ)); err != nil {
		return err
	}
	lib, err := findRuntime(env)
	if err != nil {
		return err
	}
	if lib == libName && !systemHasRuntime(env.Environ.LibraryPath) {
		return fmt.Errorf("no ONNX Runtime library found (scripts/setup.sh installs it, or set ONNXRUNTIME_SHARED_LIBRARY_PATH)")
	}
	return nil
}

// Open loads model m: its tokenizer, then an ONNX Runtime session.
func Open(m embed.Model, env embed.Env) (embed.Embedder, error) {
	dir := embed.ModelDir(m, env.Environ)
	if err := checkFiles(m, dir); err != nil {
		return nil, err
	}
	// The tokenizer loads while the runtime starts and the session is
	// created: on two cores that hides the tokenizer's ~27 ms.
	type loaded struct {
		tok *tokenizers.Tokenizer
		err error
	}
	tokc := make(chan loaded, 1)
	go func() {
		tok, err := loadTokenizer(filepath.Join(dir, "tokenizer.json"), m.MaxTokens)
		tokc <- loaded{tok, err}
	}()
	var sess *ort.DynamicAdvancedSession
	err := initRuntime(env)
	if err == nil {
		sess, err = newSession(filepath.Join(dir, "model.onnx"), env.Environ.Dirs.Cache, sessionOptions{prepack: prepack(m, env), threads: env.Threads})
	}
	tl := <-tokc
	if err != nil || tl.err != nil {
		if tl.tok != nil {
			tl.tok.Close()
		}
		if sess != nil {
			sess.Destroy()
		}
		if err == nil {
			err = tl.err
		}
		return nil, fmt.Errorf("model %s: %w", m.ID, err)
	}
	return &Embedder{model: m, dir: dir, tok: tl.tok, sess: sess}, nil
}

// prepack says whether a session of m packs its weights for the CPU's
// kernels when it is created: ~20 ms of the ~65 it takes to create, which
// repays itself over many texts (~20 % faster) but not over one query.
// Only quantised models skip it, for one query: their weight products are
// integer arithmetic and give the same vectors bit for bit either way
// (fp32 ones sum in another order without it).
func prepack(m embed.Model, env embed.Env) bool {
	return !(env.OneQuery && m.Quantised)
}

func checkFiles(m embed.Model, dir string) error {
	for _, f := range m.Files {
		st, err := os.Stat(filepath.Join(dir, f.Name))
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("model %s is not installed (no %s in %s)", m.ID, f.Name, dir)
		}
		if err != nil {
			return fmt.Errorf("model %s: %w", m.ID, err)
		}
		if f.Size > 0 && st.Size() != f.Size {
			return fmt.Errorf("model %s: %s is %d bytes, want %d (fetch it again)", m.ID, filepath.Join(dir, f.Name), st.Size(), f.Size)
		}
	}
	return nil
}

// loadTokenizer reads tokenizer.json without its padding (some exports pad
// every input to a fixed length, which only costs time) and truncates
// inputs to maxTokens, as the model cannot read more.
func loadTokenizer(path string, maxTokens int) (*tokenizers.Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	for _, key := range []string{"padding", "truncation"} {
		if data, err = sjson.DeleteBytes(data, key); err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", path, err)
		}
	}
	tok, err := tokenizers.FromBytesWithTruncation(data, uint32(maxTokens), tokenizers.TruncationDirectionRight)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return tok, nil
}

// Model describes the model.
func (e *Embedder) Model() embed.Model { return e.model }

// Dir is where the model's files were found.
func (e *Embedder) Dir() string { return e.dir }

// Close releases the session and the tokenizer.
func (e *Embedder) Close() error {
	err := e.sess.Destroy()
	e.tok.Close()
	return err
}

// Tokenize returns the token ids of text as the model sees it (with its
// special tokens, truncated to MaxTokens). Queries get the model's prefix.
func (e *Embedder) Tokenize(text string, p embed.Purpose) []int64 {
	if p == embed.Query {
		text = e.model.QueryPrefix + text
	}
	// Text crosses into the tokenizer as a C string: a NUL would end it.
	text = strings.ReplaceAll(strings.ToValidUTF8(text, "\uFFFD"), "\x00", " ")
	ids, _ := e.tok.Encode(text, true)
	out := make([]int64, len(ids))
	for i, id := range ids {
		out[i] = int64(id)
	}
	return out
}

// Embed embeds texts in batches of similar length.
func (e *Embedder) Embed(texts []string, p embed.Purpose) ([][]float32, error) {
	ids := make([][]int64, len(texts))
	order := make([]int, len(texts))
	for i, t := range texts {
		ids[i] = e.Tokenize(t, p)
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return len(ids[order[a]]) < len(ids[order[b]]) })
	out := make([][]float32, len(texts))
	size := batchSize
	if e.model.Quantised {
		size = 1
	}
	for start := 0; start < len(order); start += size {
		batch := order[start:min(start+size, len(order))]
		rows := make([][]int64, len(batch))
		for i, at := range batch {
			rows[i] = ids[at]
		}
		vecs, err := e.run(rows)
		if err != nil {
			return nil, err
		}
		for i, at := range batch {
			out[at] = vecs[i]
		}
	}
	return out, nil
}

// run embeds one batch of token id rows, padded to the longest.
func (e *Embedder) run(rows [][]int64) ([][]float32, error) {
	output, seq, err := runPadded(e.sess, rows, nil)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", e.model.ID, err)
	}
	defer output.Destroy()
	hidden, ok := output.(*ort.Tensor[float32])
	if !ok {
		return nil, fmt.Errorf("run %s: output is %T, want float32 tensor", e.model.ID, output)
	}
	n := len(rows)
	dim := e.model.Dim
	if s := hidden.GetShape(); len(s) != 3 || s[0] != int64(n) || s[1] != int64(seq) || s[2] != int64(dim) {
		return nil, fmt.Errorf("run %s: output shape %v, want [%d %d %d]", e.model.ID, s, n, seq, dim)
	}
	data := hidden.GetData()
	vecs := make([][]float32, n)
	for i := range rows {
		vecs[i] = pool(data[i*seq*dim:(i+1)*seq*dim], len(rows[i]), dim, e.model.Pooling)
		embed.Normalize(vecs[i])
	}
	return vecs, nil
}

// pool turns one row of token vectors into one vector: the first ([CLS])
// token's, or the mean over its first tokens (the row's own, not the padding).
func pool(hidden []float32, tokens, dim int, how string) []float32 {
	v := make([]float32, dim)
	if how == "cls" {
		copy(v, hidden[:dim])
		return v
	}
	for t := 0; t < tokens; t++ {
		for j := 0; j < dim; j++ {
			v[j] += hidden[t*dim+j]
		}
	}
	if tokens > 0 {
		for j := range v {
			v[j] /= float32(tokens)
		}
	}
	return v
}

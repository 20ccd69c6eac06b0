//go:build !ski_lexical_only

package onnx

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/daulet/tokenizers"
	"github.com/tidwall/sjson"
	ort "github.com/yalue/onnxruntime_go"

	"github.com/skill-inject/ski/internal/embed"
)

// The reader's input: [CLS] prompt [SEP] skill [SEP], each side encoded
// alone and cut to its budget of word pieces, type ids 0 then 1 (what
// research/reader/minilm.py trains it on).
const (
	clsToken     = 101 // the BERT uncased vocabulary's [CLS]
	sepToken     = 102 // and [SEP]
	promptTokens = 40
	skillTokens  = 64
)

// Reader runs ski's reader, a cross-encoder that reads a prompt and a
// skill's text together (package reader). It is safe for concurrent use;
// runs take turns.
type Reader struct {
	mu   sync.Mutex
	tok  *tokenizers.Tokenizer
	sess *ort.DynamicAdvancedSession
}

// OpenReader loads the reader model m (its model.onnx and tokenizer.json),
// each run using threads threads.
func OpenReader(m embed.Model, env embed.Env, threads int) (*Reader, error) {
	dir := embed.ModelDir(m, env.Environ)
	if err := checkFiles(m, dir); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("reader %s: %w", m.ID, err)
	}
	for _, key := range []string{"padding", "truncation"} {
		if data, err = sjson.DeleteBytes(data, key); err != nil {
			return nil, fmt.Errorf("reader %s: tokenizer: %w", m.ID, err)
		}
	}
	tok, err := tokenizers.FromBytes(data)
	if err != nil {
		return nil, fmt.Errorf("reader %s: tokenizer: %w", m.ID, err)
	}
	if err := initRuntime(env); err != nil {
		tok.Close()
		return nil, err
	}
	sess, err := newSession(filepath.Join(dir, "model.onnx"), env.Environ.Dirs.Cache, sessionOptions{prepack: true, threads: threads, output: "logits"})
	if err != nil {
		tok.Close()
		return nil, fmt.Errorf("reader %s: %w", m.ID, err)
	}
	return &Reader{tok: tok, sess: sess}, nil
}

// Close releases the session and the tokenizer.
func (r *Reader) Close() error {
	err := r.sess.Destroy()
	r.tok.Close()
	return err
}

// pieces returns text's word pieces, at most n.
func (r *Reader) pieces(text string, n int) []uint32 {
	// Text crosses into the tokenizer as a C string: a NUL would end it.
	text = strings.ReplaceAll(strings.ToValidUTF8(text, "\uFFFD"), "\x00", " ")
	ids, _ := r.tok.Encode(text, false)
	return ids[:min(len(ids), n)]
}

// Pair is the input of one (prompt, skill) pair: token ids and type ids.
func (r *Reader) Pair(prompt, skill string) (ids, types []int64) {
	a, b := r.pieces(prompt, promptTokens), r.pieces(skill, skillTokens)
	ids = make([]int64, 0, len(a)+len(b)+3)
	ids = append(ids, clsToken)
	for _, id := range a {
		ids = append(ids, int64(id))
	}
	ids = append(ids, sepToken)
	types = make([]int64, len(ids), cap(ids))
	for _, id := range b {
		ids = append(ids, int64(id))
	}
	ids = append(ids, sepToken)
	for len(types) < len(ids) {
		types = append(types, 1)
	}
	return ids, types
}

// Logits reads prompt with each skill text, all in one batch (the
// quantised model scales each run's inputs as a whole, so the batch is
// part of what it computes), and returns the model's logit for each.
func (r *Reader) Logits(prompt string, skills []string) ([]float32, error) {
	if len(skills) == 0 {
		return nil, nil
	}
	ids := make([][]int64, len(skills))
	types := make([][]int64, len(skills))
	for i, s := range skills {
		ids[i], types[i] = r.Pair(prompt, s)
	}
	n := len(ids)
	r.mu.Lock()
	output, _, err := runPadded(r.sess, ids, types)
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("run the reader: %w", err)
	}
	defer output.Destroy()
	out, ok := output.(*ort.Tensor[float32])
	if !ok {
		return nil, fmt.Errorf("run the reader: output is %T, want float32 tensor", output)
	}
	if s := out.GetShape(); len(s) != 1 || s[0] != int64(n) {
		return nil, fmt.Errorf("run the reader: output shape %v, want [%d]", s, n)
	}
	return append([]float32(nil), out.GetData()...), nil
}

// Score reads prompt with each skill text and returns the reader's belief
// that the prompt needs each (the logistic of its logit).
func (r *Reader) Score(prompt string, skills []string) ([]float64, error) {
	logits, err := r.Logits(prompt, skills)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(logits))
	for i, l := range logits {
		out[i] = 1 / (1 + math.Exp(-float64(l)))
	}
	return out, nil
}

//go:build !ski_lexical_only

package onnx

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/skill-inject/ski/internal/xdg"
)

// Session creation dominates a new process's cost (~135 ms for the
// quantised bge with the default optimisation level). Most of it is graph
// optimisation, so ski runs it once, saves the optimised graph under the
// cache folder and later loads that with optimisation turned off (~55 ms).
//
// The saved graph is optimised at the "extended" level, the highest whose
// result is portable across CPUs (the "all" level adds layout transforms
// tied to the machine), and its file name is keyed by the model file and the
// runtime version, so a new model or runtime makes a new file. Its weights
// go to a data file beside it (<graph>.data), which ONNX Runtime maps
// rather than reading them into the graph and copying them again: session
// creation ~90-125 -> ~60-75 ms, and ~30 MB less memory.

// inputNames are the inputs of every model ski runs (BERT's).
var inputNames = []string{"input_ids", "attention_mask", "token_type_ids"}

// sessionOptions are what a caller chooses of a session: whether the
// weights are packed for the CPU's kernels at load (see prepack), how many
// threads one run uses (0 means one), and the model's output ("" means an
// embedding model's last_hidden_state).
type sessionOptions struct {
	prepack bool
	threads int
	output  string
}

// newSession opens the model at path, through its optimised copy under
// cacheDir when there is one, making that copy otherwise. A copy that
// cannot be loaded is removed and made again; a cache that cannot be
// written only costs time.
func newSession(path, cacheDir string, so sessionOptions) (*ort.DynamicAdvancedSession, error) {
	opt, err := optimisedPath(path, cacheDir)
	if err == nil {
		// The cache's folders are ski's own, never read or written
		// through a symlink.
		err = xdg.OwnDir(filepath.Dir(opt), cacheDir, nil)
	}
	if err == nil {
		if _, err := os.Stat(opt); err == nil {
			sess, err := createSession(opt, ort.GraphOptimizationLevelDisableAll, "", so)
			if err == nil {
				return sess, nil
			}
			os.Remove(opt)
			os.Remove(opt + ".data")
		}
		if sess, err := saveOptimised(path, opt, so); err == nil {
			return sess, nil
		}
	}
	return createSession(path, ort.GraphOptimizationLevelEnableExtended, "", so)
}

// saveOptimised creates a session from path and has ONNX Runtime write the
// optimised graph and its data file into a temporary directory, then moves
// them to opt and opt+".data", the data first. Two processes saving at once
// write the same bytes, so either's files may win.
func saveOptimised(path, opt string, so sessionOptions) (*ort.DynamicAdvancedSession, error) {
	if err := os.MkdirAll(filepath.Dir(opt), 0o700); err != nil {
		return nil, fmt.Errorf("model cache: %w", err)
	}
	dir, err := os.MkdirTemp(filepath.Dir(opt), ".save-*")
	if err != nil {
		return nil, fmt.Errorf("model cache: %w", err)
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, filepath.Base(opt))
	sess, err := createSession(path, ort.GraphOptimizationLevelEnableExtended, tmp, sessionOptions{prepack: true, threads: so.threads, output: so.output})
	if err != nil {
		return nil, err
	}
	if err := os.Rename(tmp+".data", opt+".data"); err != nil {
		sess.Destroy()
		return nil, fmt.Errorf("model cache: %w", err)
	}
	if err := os.Rename(tmp, opt); err != nil {
		sess.Destroy()
		return nil, fmt.Errorf("model cache: %w", err)
	}
	removeStale(opt)
	return sess, nil
}

// removeStale removes the other optimised copies of the same model from
// the cache: those of an older runtime, model file or cache layout, which
// nothing loads any more (each is tens of MB).
func removeStale(opt string) {
	base := filepath.Base(opt)
	i := strings.LastIndexByte(base, '-')
	if i < 0 {
		return
	}
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(opt), base[:i+1]+"*.onnx*"))
	for _, f := range old {
		if f != opt && f != opt+".data" {
			os.Remove(f)
		}
	}
}

// optimisedPath is where the optimised copy of the model at path lives:
// keyed by the model's path, size and modification time and the runtime's
// version.
func optimisedPath(path, cacheDir string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("model: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("model: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00extended+data", abs, st.Size(), st.ModTime().UnixNano(), ort.GetVersion())
	key := hex.EncodeToString(h.Sum(nil))[:16]
	return filepath.Join(cacheDir, "models", filepath.Base(filepath.Dir(abs))+"-"+key+".onnx"), nil
}

// createSession makes a session for the model file at path with the given
// optimisation level, saving the optimised graph to save, and its weights to
// save+".data", when save is not "", with the options so.
func createSession(path string, level ort.GraphOptimizationLevel, save string, so sessionOptions) (*ort.DynamicAdvancedSession, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	defer opts.Destroy()
	// One thread unless asked: prompts are short, and a second thread buys
	// little on a small machine while competing with the host; an index
	// build running at idle priority asks for more.
	if err := opts.SetIntraOpNumThreads(max(so.threads, 1)); err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	if err := opts.SetGraphOptimizationLevel(level); err != nil {
		return nil, fmt.Errorf("session options: %w", err)
	}
	if !so.prepack {
		if err := opts.AddSessionConfigEntry("session.disable_prepacking", "1"); err != nil {
			return nil, fmt.Errorf("session options: %w", err)
		}
	}
	if save != "" {
		if err := opts.SetOptimizedModelFilePath(save); err != nil {
			return nil, fmt.Errorf("session options: %w", err)
		}
		// The name is relative to the graph's directory.
		if err := opts.AddSessionConfigEntry("session.optimized_model_external_initializers_file_name", filepath.Base(save)+".data"); err != nil {
			return nil, fmt.Errorf("session options: %w", err)
		}
	}
	output := so.output
	if output == "" {
		output = "last_hidden_state"
	}
	sess, err := ort.NewDynamicAdvancedSession(path, inputNames, []string{output}, opts)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return sess, nil
}

// runPadded runs sess on a batch of token rows (ids, and each row's token
// types, or nil for all zero) padded to the longest, with the attention
// mask over each row's tokens, and returns its one output (the caller
// destroys it) and the padded length.
func runPadded(sess *ort.DynamicAdvancedSession, ids, types [][]int64) (ort.Value, int, error) {
	n, seq := len(ids), 0
	for _, r := range ids {
		seq = max(seq, len(r))
	}
	flat := [3][]int64{make([]int64, n*seq), make([]int64, n*seq), make([]int64, n*seq)}
	for i, r := range ids {
		copy(flat[0][i*seq:], r)
		if types != nil {
			copy(flat[2][i*seq:], types[i])
		}
		for j := range r {
			flat[1][i*seq+j] = 1
		}
	}
	shape := ort.NewShape(int64(n), int64(seq))
	inputs := make([]ort.Value, 0, 3)
	defer func() {
		for _, v := range inputs {
			v.Destroy()
		}
	}()
	for _, data := range flat {
		t, err := ort.NewTensor(shape, data)
		if err != nil {
			return nil, 0, fmt.Errorf("input tensor: %w", err)
		}
		inputs = append(inputs, t)
	}
	outputs := []ort.Value{nil}
	if err := sess.Run(inputs, outputs); err != nil {
		return nil, 0, err
	}
	return outputs[0], seq, nil
}

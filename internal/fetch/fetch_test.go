package fetch

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// hub is a loopback server with Hugging Face's URL layout:
// /{owner}/{repo}/resolve/{revision}/{path...}.
type hub struct {
	*httptest.Server

	mu    sync.Mutex
	files map[string][]byte // "owner/repo/revision/path" → content
	reqs  []seen
	// faults for the first request of a file, by repo path.
	cut   map[string]int // send this many bytes, then drop the connection
	stall map[string]int // send this many bytes, then send nothing more
	fail  map[string]int // answer with this status instead
	// ignoreRange serves every request in full with 200.
	ignoreRange bool
	// sent is signalled when a stalled response has sent its bytes.
	sent chan struct{}
}

type seen struct {
	path, rangeHdr, auth string
}

func newHub(t *testing.T) *hub {
	t.Helper()
	h := &hub{
		files: map[string][]byte{},
		cut:   map[string]int{},
		stall: map[string]int{},
		fail:  map[string]int{},
		sent:  make(chan struct{}, 1),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{owner}/{repo}/resolve/{revision}/{path...}", h.serve)
	h.Server = httptest.NewServer(mux)
	t.Cleanup(h.Close)
	return h
}

// add stores content under repo "owner/repo" at revision and path.
func (h *hub) add(repo, revision, path string, content []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.files[repo+"/"+revision+"/"+path] = content
}

func (h *hub) requests() []seen {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]seen(nil), h.reqs...)
}

func (h *hub) serve(w http.ResponseWriter, r *http.Request) {
	path := r.PathValue("path")
	key := r.PathValue("owner") + "/" + r.PathValue("repo") + "/" + r.PathValue("revision") + "/" + path

	h.mu.Lock()
	h.reqs = append(h.reqs, seen{path: path, rangeHdr: r.Header.Get("Range"), auth: r.Header.Get("Authorization")})
	content, ok := h.files[key]
	status, fail := h.fail[path]
	delete(h.fail, path)
	cut, doCut := h.cut[path]
	delete(h.cut, path)
	stall, doStall := h.stall[path]
	delete(h.stall, path)
	ignoreRange := h.ignoreRange
	h.mu.Unlock()

	switch {
	case fail:
		http.Error(w, http.StatusText(status), status)
		return
	case !ok:
		w.Header().Set("X-Error-Message", "Entry not found")
		http.NotFound(w, r)
		return
	case doCut || doStall:
		n := cut
		if doStall {
			n = stall
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(content)))
		w.WriteHeader(http.StatusOK)
		w.Write(content[:n])
		w.(http.Flusher).Flush()
		if doStall {
			h.sent <- struct{}{}
			<-r.Context().Done()
		}
		panic(http.ErrAbortHandler)
	}
	if ignoreRange {
		r.Header.Del("Range")
	}
	http.ServeContent(w, r, path, time.Time{}, bytes.NewReader(content))
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

const repo = "Xenova/bge-small-en-v1.5"

// model sets up the usual two files on h: a model in a subfolder saved
// under another name, and a file at the top.
func model(t *testing.T, h *hub) (src Source, files []File, want map[string][]byte) {
	t.Helper()
	onnx := randomBytes(t, 3<<20-12345)
	tok := randomBytes(t, 1<<20+777)
	h.add(repo, "main", "onnx/model_quantized.onnx", onnx)
	h.add(repo, "main", "tokenizer.json", tok)
	src = Source{Endpoint: h.URL, Repo: repo, Revision: "main"}
	files = []File{
		{Path: "onnx/model_quantized.onnx", SHA256: sum(onnx), Size: int64(len(onnx)), Save: "model.onnx"},
		{Path: "tokenizer.json", SHA256: strings.ToUpper(sum(tok))},
	}
	want = map[string][]byte{"model.onnx": onnx, "tokenizer.json": tok}
	return src, files, want
}

// check asserts that dir holds exactly want.
func check(t *testing.T, dir string, want map[string][]byte) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != len(want) {
		t.Errorf("dir holds %v, want %d files", names, len(want))
	}
	for name, content := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !bytes.Equal(got, content) {
			t.Errorf("%s: %d bytes differ from the %d served", name, len(got), len(content))
		}
	}
}

func TestURL(t *testing.T) {
	tests := []struct {
		src  Source
		path string
		want string
	}{
		{Source{"https://huggingface.co", repo, "main"}, "onnx/model_quantized.onnx",
			"https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/main/onnx/model_quantized.onnx"},
		{Source{"https://hf-mirror.com/", repo, "refs/pr/1"}, "tokenizer.json",
			"https://hf-mirror.com/Xenova/bge-small-en-v1.5/resolve/refs%2Fpr%2F1/tokenizer.json"},
		{Source{"", "o/r", ""}, "a b/c#d?.bin",
			"https://huggingface.co/o/r/resolve/main/a%20b/c%23d%3F.bin"},
		{Source{"http://127.0.0.1:8080/mirror", "o/r", "0123abc"}, "/x.json",
			"http://127.0.0.1:8080/mirror/o/r/resolve/0123abc/x.json"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := URL(tt.src, tt.path); got != tt.want {
				t.Errorf("URL(%+v, %q) = %q", tt.src, tt.path, got)
			}
		})
	}
}

func TestFresh(t *testing.T) {
	h := newHub(t)
	src, files, want := model(t, h)
	dir := filepath.Join(t.TempDir(), "models", "bge")

	if err := Files(t.Context(), src, dir, files, Options{Token: "hf_secret"}); err != nil {
		t.Fatal(err)
	}
	check(t, dir, want)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&0o700 != 0o700 || perm&0o022 != 0 {
		t.Errorf("dir mode %v, want 0755 (less umask)", perm)
	}
	reqs := h.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2: %+v", len(reqs), reqs)
	}
	for i, p := range []string{"onnx/model_quantized.onnx", "tokenizer.json"} {
		r := reqs[i]
		if r.path != p || r.rangeHdr != "" || r.auth != "Bearer hf_secret" {
			t.Errorf("request %d = %+v, want path %s, no Range, bearer token", i, r, p)
		}
	}
}

func TestEndpointOverride(t *testing.T) {
	h := newHub(t)
	src, files, want := model(t, h)
	src.Endpoint = "http://127.0.0.1:1" // nothing listens there
	dir := t.TempDir()
	if err := Files(t.Context(), src, dir, files, Options{Endpoint: h.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	check(t, dir, want)
}

func TestSkipPresent(t *testing.T) {
	h := newHub(t)
	src, files, want := model(t, h)
	dir := t.TempDir()
	for name, content := range want {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := Files(t.Context(), src, dir, files, Options{Progress: &out}); err != nil {
		t.Fatal(err)
	}
	if n := len(h.requests()); n != 0 {
		t.Errorf("%d requests for files already present, want 0", n)
	}
	check(t, dir, want)
	if got := strings.Count(out.String(), "up to date"); got != 2 {
		t.Errorf("progress %q: want 2 'up to date' lines", out.String())
	}
}

func TestReplaceWrongPresent(t *testing.T) {
	h := newHub(t)
	src, files, want := model(t, h)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Files(t.Context(), src, dir, files, Options{}); err != nil {
		t.Fatal(err)
	}
	check(t, dir, want)
	if n := len(h.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestResumeAfterCut(t *testing.T) {
	h := newHub(t)
	src, files, want := model(t, h)
	const n = 1_000_003
	h.cut["onnx/model_quantized.onnx"] = n
	dir := t.TempDir()

	if err := Files(t.Context(), src, dir, files, Options{}); err != nil {
		t.Fatal(err)
	}
	check(t, dir, want)
	reqs := h.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (cut, resume, second file): %+v", len(reqs), reqs)
	}
	if reqs[0].rangeHdr != "" {
		t.Errorf("first request has Range %q", reqs[0].rangeHdr)
	}
	if got, want := reqs[1].rangeHdr, "bytes="+strconv.Itoa(n)+"-"; got != want {
		t.Errorf("resumed request has Range %q, want %q", got, want)
	}
}

func TestResumeExistingPart(t *testing.T) {
	h := newHub(t)
	src, files, want := model(t, h)
	files = files[:1]
	delete(want, "tokenizer.json")
	dir := t.TempDir()
	const n = 123_457
	if err := os.WriteFile(filepath.Join(dir, "model.onnx.part"), want["model.onnx"][:n], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Files(t.Context(), src, dir, files, Options{}); err != nil {
		t.Fatal(err)
	}
	check(t, dir, want)
	reqs := h.requests()
	if len(reqs) != 1 || reqs[0].rangeHdr != "bytes=123457-" {
		t.Errorf("requests %+v, want one with Range bytes=123457-", reqs)
	}
}

func TestPartAlreadyComplete(t *testing.T) {
	h := newHub(t)
	src, files, want := model(t, h)
	files = files[1:]
	delete(want, "model.onnx")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json.part"), want["tokenizer.json"], 0o644); err != nil {
		t.Fatal(err)
	}
	// The server answers 416 to a range starting at the end of the file.
	if err := Files(t.Context(), src, dir, files, Options{}); err != nil {
		t.Fatal(err)
	}
	check(t, dir, want)
	if n := len(h.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestServerIgnoresRange(t *testing.T) {
	h := newHub(t)
	h.ignoreRange = true
	src, files, want := model(t, h)
	dir := t.TempDir()
	// A .part whose bytes are wrong: it must be thrown away, not extended.
	if err := os.WriteFile(filepath.Join(dir, "model.onnx.part"), randomBytes(t, 500_000), 0o644); err != nil {
		t.Fatal(err)
	}
	h.cut["tokenizer.json"] = 300_000

	if err := Files(t.Context(), src, dir, files, Options{}); err != nil {
		t.Fatal(err)
	}
	check(t, dir, want)
	reqs := h.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3: %+v", len(reqs), reqs)
	}
	if reqs[0].rangeHdr != "bytes=500000-" || reqs[2].rangeHdr != "bytes=300000-" {
		t.Errorf("requests %+v: want Range on the .part and on the retry", reqs)
	}
}

func TestShaMismatch(t *testing.T) {
	h := newHub(t)
	src, files, _ := model(t, h)
	bad := strings.Repeat("ab", 32)
	files[0].SHA256 = bad
	dir := t.TempDir()

	err := Files(t.Context(), src, dir, files, Options{})
	if err == nil {
		t.Fatal("no error for a sha256 mismatch")
	}
	actual := sum(h.files[repo+"/main/onnx/model_quantized.onnx"])
	for _, s := range []string{"model.onnx", "sha256 mismatch", bad, actual} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
	check(t, dir, nil) // no final file, no .part, and the second file not fetched
	if n := len(h.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int // 0: the file is missing
		token  string
		want   []string
	}{
		{"not found", 0, "", []string{"GET ", "/Xenova/bge-small-en-v1.5/resolve/main/onnx/model_quantized.onnx: 404 Not Found", "Entry not found"}},
		{"unauthorized", 401, "", []string{"401 Unauthorized", "HF_TOKEN"}},
		{"forbidden with token", 403, "hf_x", []string{"403 Forbidden", "HF_TOKEN", repo}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHub(t)
			src, files, _ := model(t, h)
			if tt.status == 0 {
				h.files = map[string][]byte{}
			} else {
				h.fail["onnx/model_quantized.onnx"] = tt.status
			}
			err := Files(t.Context(), src, t.TempDir(), files, Options{Token: tt.token})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), URL(src, files[0].Path)) {
				t.Errorf("error %q does not name the URL", err)
			}
			for _, s := range tt.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			var he *HTTPError
			if !errors.As(err, &he) {
				t.Errorf("error %q is not an *HTTPError", err)
			}
			if n := len(h.requests()); n != 1 {
				t.Errorf("%d requests, want 1 (a client error is not retried)", n)
			}
		})
	}
}

func TestRetryServerError(t *testing.T) {
	h := newHub(t)
	src, files, want := model(t, h)
	h.fail["tokenizer.json"] = http.StatusServiceUnavailable
	dir := t.TempDir()
	if err := Files(t.Context(), src, dir, files, Options{}); err != nil {
		t.Fatal(err)
	}
	check(t, dir, want)
	if n := len(h.requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestRetriesExhausted(t *testing.T) {
	h := newHub(t)
	src, files, _ := model(t, h)
	h.cut["tokenizer.json"] = 1000
	dir := t.TempDir()
	err := Files(t.Context(), src, dir, files[1:], Options{Retries: -1})
	if err == nil || !strings.Contains(err.Error(), "tokenizer.json") {
		t.Fatalf("error %v, want one naming tokenizer.json", err)
	}
	if n := len(h.requests()); n != 1 {
		t.Errorf("%d requests with Retries -1, want 1", n)
	}
	if fi, err := os.Stat(filepath.Join(dir, "tokenizer.json.part")); err != nil || fi.Size() != 1000 {
		t.Errorf("the .part should keep the 1000 bytes for the next run: %v", err)
	}
}

func TestStallRetried(t *testing.T) {
	h := newHub(t)
	src, files, want := model(t, h)
	h.stall["tokenizer.json"] = 4096
	dir := t.TempDir()
	if err := Files(t.Context(), src, dir, files, Options{IdleTimeout: 200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	check(t, dir, want)
	reqs := h.requests()
	if len(reqs) != 3 || reqs[2].rangeHdr != "bytes=4096-" {
		t.Errorf("requests %+v, want a third resuming at 4096", reqs)
	}
}

func TestProgress(t *testing.T) {
	t.Run("lines", func(t *testing.T) {
		h := newHub(t)
		src, files, _ := model(t, h)
		var out bytes.Buffer
		if err := Files(t.Context(), src, t.TempDir(), files, Options{Progress: &out}); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		if strings.Contains(s, "\r") {
			t.Errorf("non-TTY progress has \\r: %q", s)
		}
		lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "model.onnx: 3.1 MB in ") || !strings.HasPrefix(lines[1], "tokenizer.json: 1.0 MB in ") {
			t.Errorf("non-TTY progress %q: want one line per file", s)
		}
	})
	t.Run("tty", func(t *testing.T) {
		h := newHub(t)
		src, files, _ := model(t, h)
		var out bytes.Buffer
		if err := Files(t.Context(), src, t.TempDir(), files, Options{Progress: &out, TTY: true}); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		if !strings.Contains(s, "\rmodel.onnx 100% 3.1/3.1 MB ") {
			t.Errorf("TTY progress %q: no final bar for model.onnx", s)
		}
		if !strings.Contains(s, "\rtokenizer.json ") || !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 2 {
			t.Errorf("TTY progress %q: want a bar per file, each ended by one newline", s)
		}
	})
}

func TestCancel(t *testing.T) {
	h := newHub(t)
	src, files, want := model(t, h)
	h.stall["onnx/model_quantized.onnx"] = 50_000
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-h.sent
		cancel()
	}()
	start := time.Now()
	err := Files(ctx, src, dir, files, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancel took %v", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("final file after cancel: %v", err)
	}
	// The .part keeps whatever arrived before the cancel, for the next run.
	if part, err := os.ReadFile(filepath.Join(dir, "model.onnx.part")); err == nil {
		if len(part) > 50_000 || !bytes.Equal(part, want["model.onnx"][:len(part)]) {
			t.Errorf("the .part holds %d bytes that are not a prefix of the file", len(part))
		}
	}
	if n := len(h.requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no retry after cancel)", n)
	}

	// Already cancelled: nothing is fetched.
	err = Files(ctx, src, t.TempDir(), files, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if n := len(h.requests()); n != 1 {
		t.Errorf("%d requests, want none after the first call", n-1)
	}
}

func TestBadFiles(t *testing.T) {
	good := strings.Repeat("0", 64)
	tests := []struct {
		name  string
		files []File
		want  string
	}{
		{"empty path", []File{{SHA256: good}}, "empty path"},
		{"no sha", []File{{Path: "a.bin"}}, "not 64 hex digits"},
		{"short sha", []File{{Path: "a.bin", SHA256: "abcd"}}, "not 64 hex digits"},
		{"save with dir", []File{{Path: "a.bin", SHA256: good, Save: "x/a.bin"}}, "plain file name"},
		{"save dotdot", []File{{Path: "a.bin", SHA256: good, Save: ".."}}, "plain file name"},
		{"same save", []File{{Path: "a/m.bin", SHA256: good}, {Path: "b/m.bin", SHA256: good}}, "both be saved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHub(t)
			src := Source{Endpoint: h.URL, Repo: repo}
			dir := filepath.Join(t.TempDir(), "d")
			err := Files(t.Context(), src, dir, tt.files, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
			if n := len(h.requests()); n != 0 {
				t.Errorf("%d requests, want 0", n)
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("dir created for invalid input")
			}
		})
	}
}

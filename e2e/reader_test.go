package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/environ"
	"github.com/skill-inject/ski/internal/reader"
	"github.com/skill-inject/ski/internal/record"
)

// readerWorld is corpusWorld with the reader installed (scripts/setup.sh
// puts it beside the embedding models) and turned on in the config.
func readerWorld(t *testing.T) *world {
	t.Helper()
	w := corpusWorld(t)
	dir := filepath.Join(environ.FromOS().ModelDir, reader.Files().ID)
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		t.Fatalf("the reader is not installed (run scripts/setup.sh): %v", err)
	}
	w.readerConfig(true)
	return w
}

// readerConfig turns the reader on or off in the world's config.
func (w *world) readerConfig(on bool) {
	w.t.Helper()
	dir := filepath.Join(w.home, ".config", "ski")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(fmt.Sprintf("reader = %v\n", on)), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// devPrompts are the prompts of ../shared/eval/dev.tsv.
func devPrompts(t testing.TB) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(filepath.Dir(repo), "shared", "eval", "dev.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan(); i++ {
		if cols := strings.Split(sc.Text(), "\t"); i > 0 && len(cols) > 1 {
			out = append(out, cols[1])
		}
	}
	return out
}

// sureAndUnsure splits dev.tsv's prompts by whether the judge alone is
// unsure of them (w.judged, reader.Params.Unsure), up to n of each.
func (w *world) sureAndUnsure(n int) (sure, unsure []string) {
	w.t.Helper()
	params := reader.Default()
	for _, prompt := range devPrompts(w.t) {
		if len(sure) >= n && len(unsure) >= n {
			break
		}
		isUnsure := params.Unsure(w.judged(withPrompt(w.t, w.payload("claude-prompt.json"), prompt)))
		if isUnsure && len(unsure) < n {
			unsure = append(unsure, prompt)
		} else if !isUnsure && len(sure) < n {
			sure = append(sure, prompt)
		}
	}
	if len(sure) == 0 || len(unsure) == 0 {
		w.t.Fatalf("dev.tsv has %d prompts the judge is sure of and %d it is unsure of: the test needs both", len(sure), len(unsure))
	}
	return sure, unsure
}

// judged ranks event's prompt with the stages and the reader off: the
// candidates as the judge alone leaves them.
func (w *world) judged(event []byte) []record.Candidate {
	w.t.Helper()
	w.readerConfig(false)
	defer w.readerConfig(true)
	q := w.stage(event, "ski-embed", "--query")
	if q.code != 0 {
		w.t.Fatalf("ski-embed --query: %+v", q)
	}
	r := w.stage([]byte(q.stdout), "ski-rank")
	if r.code != 0 {
		w.t.Fatalf("ski-rank: %+v", r)
	}
	var cands []record.Candidate
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var c record.Candidate
		if line == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			w.t.Fatalf("candidate %q: %v", line, err)
		}
		cands = append(cands, c)
	}
	return cands
}

var serverCounts = regexp.MustCompile(`since it started: (\d+) prompts, (none|\d+) read by the reader`)

// readings is how many prompts the embed server's reader has read, as ski
// status reports it.
func (w *world) readings() int {
	w.t.Helper()
	r := w.ski("status", "--host", "claude")
	m := serverCounts.FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil {
		w.t.Fatalf("ski status names no server counts: %+v", r)
	}
	n, _ := strconv.Atoi(m[2]) // "none" is 0
	return n
}

// settledReadings is the server's count of readings once two looks a
// fifth of a second apart agree (a reading a prompt gave up waiting for is
// counted when it ends).
func (w *world) settledReadings() int {
	w.t.Helper()
	last := w.readings()
	for range 50 {
		time.Sleep(200 * time.Millisecond)
		n := w.readings()
		if n == last {
			return n
		}
		last = n
	}
	return last
}

// With the reader on, a real prompt hook asks the embed server's reader
// about a prompt only when the judge is unsure of it (its best candidate's
// confidence, ranked with the reader off, in the fitted band): the
// server's count of readings goes up by one for each such prompt and
// stays for every other.
func TestReaderReadsOnlyUnsurePrompts(t *testing.T) {
	w := readerWorld(t)
	w.sessionStart("claude")
	sure, unsure := w.sureAndUnsure(6)
	// The server loads the reader on its first reading, which takes longer
	// than a prompt waits (that prompt keeps the judge's word, and the
	// reading is counted when it ends): one unsure prompt first, until it
	// is counted.
	w.timedHook("claude", "prompt", withSession(t, withPrompt(t, w.payload("claude-prompt.json"), unsure[0]), "reader-warm"), 5*time.Second)
	for end := time.Now().Add(30 * time.Second); w.readings() == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the server never counted the first reading")
		}
	}
	for i, prompt := range append(sure, unsure...) {
		event := withSession(t, withPrompt(t, w.payload("claude-prompt.json"), prompt), fmt.Sprintf("reader-%d", i))
		want := 0
		if i >= len(sure) {
			want = 1
		}
		before := w.settledReadings()
		w.timedHook("claude", "prompt", event, 5*time.Second)
		if got := w.settledReadings() - before; got != want {
			t.Errorf("%q: the reader read it %d times, want %d (the judge unsure: %v)", prompt, got, want, want == 1)
		}
	}
	t.Logf("%d prompts the judge is sure of, %d it is unsure of", len(sure), len(unsure))
}

// A damaged reader file, and no embed server, each leave the decision to
// the judge: the hook prints what it prints with the reader off, exits 0
// in time, and ski doctor warns of the damaged file. (A reader slower than
// its deadline: embedsrv's TestRankerRead.)
func TestReaderFallsBackToTheJudge(t *testing.T) {
	w := readerWorld(t)
	// A model folder of the world's own: the installed models, and a
	// reader whose model file is cut short.
	installed := environ.FromOS().ModelDir
	models := t.TempDir()
	entries, err := os.ReadDir(installed)
	if err != nil {
		t.Fatal(err)
	}
	id := reader.Files().ID
	for _, e := range entries {
		if e.Name() != id {
			os.Symlink(filepath.Join(installed, e.Name()), filepath.Join(models, e.Name()))
		}
	}
	os.Mkdir(filepath.Join(models, id), 0o755)
	for _, f := range reader.Files().Files {
		b, err := os.ReadFile(filepath.Join(installed, id, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == "model.onnx" {
			b = b[:len(b)/2]
		}
		os.WriteFile(filepath.Join(models, id, f.Name), b, 0o644)
	}
	w.extra = append(w.extra, "SKI_MODEL_DIR="+models)
	w.sessionStart("claude")
	if line := doctorLine(t, w.ski("doctor").stdout, "reader"); !strings.Contains(line, "warn") || !strings.Contains(line, "the judge decides alone") {
		t.Errorf("ski doctor on a damaged reader: %q", line)
	}
	// The prompts the judge alone is unsure of are the same with or
	// without a server (the same model and index).
	_, unsure := w.sureAndUnsure(4)
	server := w.extra
	for _, c := range []struct {
		name  string
		extra []string
	}{{"damaged reader", server}, {"no server", append(append([]string(nil), server...), "SKI_EMBED_SERVER=0")}} {
		w.extra = c.extra
		for i, prompt := range unsure {
			payload := withPrompt(t, w.payload("claude-prompt.json"), prompt)
			w.readerConfig(false)
			judge := w.timedHook("claude", "prompt", withSession(t, payload, fmt.Sprintf("judge-%s-%d", c.name, i)), 5*time.Second)
			w.readerConfig(true)
			got := w.timedHook("claude", "prompt", withSession(t, payload, fmt.Sprintf("reader-%s-%d", c.name, i)), 5*time.Second)
			if got != judge {
				t.Errorf("%s: %q: the hook printed\n%s\nwith the reader on, and with it off\n%s", c.name, prompt, got, judge)
			}
		}
	}
}

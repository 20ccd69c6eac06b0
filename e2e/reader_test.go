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

var serverCounts = regexp.MustCompile(`since it started: (\d+) prompts, (none|\d+) read by the reader(?: \([^)]*\))?(?:, (\d+) more left to the judge)?`)

// counts are the embed server's counts, as ski status reports them.
type counts struct {
	prompts, reads, declined int
}

// asked is how many readings ski-rank asked for: done or declined.
func (c counts) asked() int { return c.reads + c.declined }

// counts are the embed server's counts since it started.
func (w *world) counts() counts {
	w.t.Helper()
	r := w.ski("status", "--host", "claude")
	m := serverCounts.FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil {
		w.t.Fatalf("ski status names no server counts: %+v", r)
	}
	var c counts
	c.prompts, _ = strconv.Atoi(m[1])
	c.reads, _ = strconv.Atoi(m[2]) // "none" is 0
	c.declined, _ = strconv.Atoi(m[3])
	return c
}

// settledCounts are the server's counts once two looks a fifth of a
// second apart agree (a reading a prompt gave up waiting for is counted
// when it ends).
func (w *world) settledCounts() counts {
	w.t.Helper()
	last := w.counts()
	for range 50 {
		time.Sleep(200 * time.Millisecond)
		c := w.counts()
		if c == last {
			return c
		}
		last = c
	}
	return last
}

// warmReader has the server load the reader: the first prompt asking for
// it starts the load in the background and keeps the judge's word, as do
// prompts until the load ends, so a prompt the judge is unsure of goes
// again, a new session each time, until a reading is counted.
func (w *world) warmReader(t *testing.T, unsure string) {
	t.Helper()
	for i, end := 0, time.Now().Add(30*time.Second); w.counts().reads == 0; i++ {
		if time.Now().After(end) {
			t.Fatal("the server never counted a reading")
		}
		w.timedHook("claude", "prompt", withSession(t, withPrompt(t, w.payload("claude-prompt.json"), unsure), fmt.Sprintf("reader-warm-%d", i)), 5*time.Second)
		time.Sleep(100 * time.Millisecond)
	}
}

// With the reader on, a real prompt hook asks the embed server's reader
// about a prompt only when the judge is unsure of it (its best candidate's
// confidence, ranked with the reader off, in the fitted band): the
// server's count of readings (done, or declined past the reader's share)
// goes up by one for each such prompt and stays for every other.
func TestReaderReadsOnlyUnsurePrompts(t *testing.T) {
	w := readerWorld(t)
	w.sessionStart("claude")
	sure, unsure := w.sureAndUnsure(6)
	w.warmReader(t, unsure[0])
	for i, prompt := range append(sure, unsure...) {
		event := withSession(t, withPrompt(t, w.payload("claude-prompt.json"), prompt), fmt.Sprintf("reader-%d", i))
		want := 0
		if i >= len(sure) {
			want = 1
		}
		before := w.settledCounts().asked()
		w.timedHook("claude", "prompt", event, 5*time.Second)
		if got := w.settledCounts().asked() - before; got != want {
			t.Errorf("%q: asked the reader %d times, want %d (the judge unsure: %v)", prompt, got, want, want == 1)
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

// Past its share of the prompts (params.json's max_share) the server
// declines to read: a long run of prompts the judge is unsure of is read
// up to the share and the saved readings, each declined one is counted and
// keeps the judge's word (the hook prints what it prints with the reader
// off), and no prompt fails or waits.
func TestReaderKeepsToItsShare(t *testing.T) {
	w := readerWorld(t)
	w.sessionStart("claude")
	_, unsure := w.sureAndUnsure(14)
	if len(unsure) < 14 {
		t.Fatalf("dev.tsv has %d prompts the judge is unsure of, the test needs 14", len(unsure))
	}
	w.warmReader(t, unsure[0])
	start := w.settledCounts()
	printed := map[string]string{}
	var declined []string
	for i, prompt := range unsure[1:] {
		before := w.settledCounts()
		printed[prompt] = w.timedHook("claude", "prompt", withSession(t, withPrompt(t, w.payload("claude-prompt.json"), prompt), fmt.Sprintf("share-%d", i)), 5*time.Second)
		after := w.settledCounts()
		if after.asked()-before.asked() != 1 {
			t.Errorf("%q: asked the reader %d times, want 1", prompt, after.asked()-before.asked())
		}
		if after.declined > before.declined {
			declined = append(declined, prompt)
		}
	}
	end := w.settledCounts()
	prompts, reads := end.prompts-start.prompts, end.reads-start.reads
	share := reader.Default().MaxShare
	if len(declined) == 0 || float64(reads) > share*float64(prompts)+5 {
		t.Fatalf("%d prompts the judge is unsure of in a row: %d read, %d declined (share %.2f, at most 5 saved)", prompts, reads, len(declined), share)
	}
	w.readerConfig(false)
	for i, prompt := range declined {
		judge := w.timedHook("claude", "prompt", withSession(t, withPrompt(t, w.payload("claude-prompt.json"), prompt), fmt.Sprintf("share-judge-%d", i)), 5*time.Second)
		if printed[prompt] != judge {
			t.Errorf("%q, declined: the hook printed\n%s\nand with the reader off\n%s", prompt, printed[prompt], judge)
		}
	}
	t.Logf("%d unsure prompts in a row: %d read, %d declined", prompts, reads, len(declined))
}

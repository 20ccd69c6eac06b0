package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/embcache"
	"github.com/skill-inject/ski/internal/indexfile"
	"github.com/skill-inject/ski/internal/vecfile"
)

// corpusWorld is a fresh user with the real model, default settings (the
// embed server on, the hooks' own time limit) and the whole shared skills
// corpus as the skill root, as the indexing tests need.
func corpusWorld(t testing.TB) *world {
	t.Helper()
	shared := os.Getenv("SKI_SHARED")
	if shared == "" {
		shared = filepath.Join(filepath.Dir(repo), "shared")
	}
	corpus := filepath.Join(shared, "skills-corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Fatalf("the shared skills corpus is needed beside the repository: %v", err)
	}
	w := newWorld(t)
	realModel(t, w)
	w.skills = corpus
	w.extra = append(w.extra, "SKI_EMBED_SERVER=1")
	return w
}

// timedHook runs a hook and fails unless it exits 0 within limit and
// prints nothing or one valid payload.
func (w *world) timedHook(host, mode string, payload []byte, limit time.Duration) string {
	w.t.Helper()
	start := time.Now()
	out := w.hook(host, mode, payload)
	if took := time.Since(start); took > limit {
		w.t.Fatalf("%s %s took %v, want at most %v", host, mode, took, limit)
	}
	if out != "" && mode == "prompt" && host == "claude" {
		claudeContext(w.t, out)
	}
	return out
}

func (w *world) indexDir() string { return filepath.Join(w.home, ".cache", "ski", "index") }

// modelIndex is the path of the world's (only) index of the real model.
func (w *world) modelIndex() string {
	w.t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.indexDir(), "*.skv"))
	for _, f := range files {
		if h, err := vecfile.ReadHeader(f); err == nil && h.Model == "bge-small-en-v1.5-q" {
			return f
		}
	}
	w.t.Fatalf("no index of the model among %v", files)
	return ""
}

func (w *world) log() string {
	b, _ := os.ReadFile(filepath.Join(w.home, ".local", "state", "ski", "hook.log"))
	return string(b)
}

// inSession returns the Claude prompt payload with prompt and session id.
func inSession(t *testing.T, w *world, session, prompt string) []byte {
	t.Helper()
	var m map[string]any
	json.Unmarshal(w.payload("claude-prompt.json"), &m)
	m["session_id"], m["prompt"] = session, prompt
	b, _ := json.Marshal(m)
	return b
}

const postmortem = "write a blameless postmortem for yesterday's 40 minute checkout outage"

// A new user with ~200 skills: the first session-start and the first
// prompt return at once, the index is built in the background, and a later
// prompt injects the right skill.
func TestFirstUseBuildsInBackground(t *testing.T) {
	w := corpusWorld(t)
	w.timedHook("claude", "session-start", w.payload("claude-session-startup.json"), time.Second)
	w.timedHook("claude", "prompt", inSession(t, w, "first", postmortem), time.Second)
	w.waitBuilds()
	if !strings.Contains(w.log(), "ski-embed: built ") {
		t.Fatalf("no background build in the log:\n%s", w.log())
	}
	ctx := claudeContext(t, w.timedHook("claude", "prompt", inSession(t, w, "second", postmortem), time.Second))
	if !strings.Contains(ctx, "postmortem") {
		t.Fatalf("after the build: %s", ctx)
	}
}

// builderPID waits until the world's builder has embedded at least n texts
// and returns its process id.
func (w *world) builderPID(n int) int {
	w.t.Helper()
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		progress, _ := filepath.Glob(filepath.Join(w.indexDir(), "*.progress"))
		for _, p := range progress {
			var pr struct{ PID, Done int }
			if b, err := os.ReadFile(p); err == nil && json.Unmarshal(b, &pr) == nil && pr.Done >= n {
				return pr.PID
			}
		}
	}
	w.t.Fatalf("no builder got to %d texts; log:\n%s", n, w.log())
	return 0
}

// refreshLine runs ski-embed --refresh by hand and returns its summary.
func (w *world) refresh() map[string]any {
	w.t.Helper()
	r := w.stage(w.payload("claude-session-startup.json"), "ski-embed", "--refresh")
	var line map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &line) != nil {
		w.t.Fatalf("ski-embed --refresh: %+v", r)
	}
	return line
}

// A builder killed with SIGKILL half way keeps what it embedded: the next
// build embeds exactly the texts not yet persisted, and its index equals a
// clean build's.
func TestKilledBuilderResumes(t *testing.T) {
	w := corpusWorld(t)
	w.hook("claude", "session-start", w.payload("claude-session-startup.json"))
	pid := w.builderPID(40)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for syscall.Kill(pid, 0) == nil {
		time.Sleep(10 * time.Millisecond)
	}
	cache, err := embcache.Open(filepath.Join(w.home, ".cache", "ski"), "bge-small-en-v1.5-q", 384, nil)
	if err != nil {
		t.Fatal(err)
	}
	persisted := cache.Len()
	line := w.refresh()
	total, embedded, cached := int(line["count"].(float64)), int(line["embedded"].(float64)), int(line["cached"].(float64))
	t.Logf("killed builder persisted %d vectors; the next build embedded %d and took %d from the cache, of %d skills", persisted, embedded, cached, total)
	if persisted == 0 || persisted >= total {
		t.Fatalf("persisted %d of %d", persisted, total)
	}
	if cached != persisted || embedded+cached != total {
		t.Fatalf("resumed build: embedded %d, cached %d, want %d and %d", embedded, cached, total-persisted, persisted)
	}
	got, err := indexfile.Read(w.modelIndex())
	if err != nil {
		t.Fatal(err)
	}
	clean := corpusWorld(t)
	clean.refresh()
	want, err := indexfile.Read(clean.modelIndex())
	if err != nil {
		t.Fatal(err)
	}
	got.Header.Created, want.Header.Created = "", ""
	if !reflect.DeepEqual(got.Header, want.Header) || len(got.Entries) != len(want.Entries) {
		t.Fatalf("resumed index differs from a clean build's: %+v vs %+v", got.Header, want.Header)
	}
	for i := range got.Entries {
		if !reflect.DeepEqual(got.Entries[i], want.Entries[i]) {
			t.Fatalf("entry %d (%s) differs from a clean build's", i, got.Entries[i].Skill.ID)
		}
	}
}

// Any damage to the index or the embedding cache is found, set aside and
// rebuilt in the background; prompts meanwhile exit 0 at once, and one
// soon after injects again.
func TestDamageHealsInBackground(t *testing.T) {
	w := corpusWorld(t)
	w.sessionStart("claude")
	index := w.modelIndex()
	cacheFile := embcache.Path(filepath.Join(w.home, ".cache", "ski"), "bge-small-en-v1.5-q")
	flip := func(path string, at func(n int) int) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[at(len(b))] ^= 0x20
		os.WriteFile(path, b, 0o600)
	}
	truncate := func(path string) {
		b, _ := os.ReadFile(path)
		os.WriteFile(path, b[:len(b)/2], 0o600)
	}
	toDir := func(path string) {
		os.Remove(path)
		os.MkdirAll(filepath.Join(path, "x"), 0o700)
	}
	damages := []struct {
		name  string
		apply func()
		aside bool // the damaged index is set aside (else it is simply replaced)
	}{
		{"table checksum fails under a valid header", func() { flip(index, func(n int) int { return n / 2 }) }, true},
		{"byte flipped in the header", func() { flip(index, func(int) int { return 20 }) }, true},
		{"records checksum fails", func() { flip(index, func(n int) int { return n - 3 }) }, true},
		{"index truncated", func() { truncate(index) }, true},
		{"index replaced by a directory", func() { toDir(index) }, true},
		{"index replaced by a dangling symlink", func() { os.Remove(index); os.Symlink(index+".nowhere", index) }, false},
		{"cache byte flipped, index truncated", func() { flip(cacheFile, func(n int) int { return n / 3 }); truncate(index) }, true},
		{"cache truncated, index garbage", func() { truncate(cacheFile); os.WriteFile(index, []byte("garbage"), 0o600) }, true},
		{"cache replaced by a directory, index gone", func() { toDir(cacheFile); os.Remove(index) }, false},
	}
	for i, d := range damages {
		d.apply()
		// The first prompt after the damage: exit 0 at once, a valid
		// payload or nothing.
		w.timedHook("claude", "prompt", inSession(t, w, fmt.Sprintf("damage-%d", i), postmortem), 2*time.Second)
		healed := false
		for end := time.Now().Add(60 * time.Second); time.Now().Before(end) && !healed; time.Sleep(50 * time.Millisecond) {
			w.waitBuilds()
			healed = vecfile.Verify(index) == nil
			if !healed {
				// Nothing has noticed yet: a prompt (which fails to rank
				// with a damaged table, and has the index checked) does.
				w.hook("claude", "prompt", inSession(t, w, fmt.Sprintf("damage-%d-again", i), "thanks"))
			}
		}
		if !healed {
			t.Fatalf("%s: index not rebuilt; log:\n%s", d.name, w.log())
		}
		if aside, _ := filepath.Glob(index + ".corrupt-*"); d.aside && len(aside) == 0 {
			t.Errorf("%s: the damaged index was not set aside", d.name)
		}
		for _, f := range []string{index, cacheFile} {
			if st, err := os.Lstat(f); err != nil || !st.Mode().IsRegular() {
				t.Errorf("%s: %s not rebuilt as a regular file: %v", d.name, f, err)
			}
		}
		aside, _ := filepath.Glob(index + ".corrupt-*")
		for _, a := range aside {
			os.RemoveAll(a)
		}
		ctx := claudeContext(t, w.hook("claude", "prompt", inSession(t, w, fmt.Sprintf("healed-%d", i), postmortem)))
		if !strings.Contains(ctx, "postmortem") {
			t.Fatalf("%s: after healing: %s", d.name, ctx)
		}
	}
}

// Fifty session-starts at once start exactly one builder.
func TestConcurrentSessionStartsOneBuilder(t *testing.T) {
	w := corpusWorld(t)
	var wg sync.WaitGroup
	codes := make([]int, 50)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("sh", filepath.Join(repo, "scripts", "hook-claude.sh"), "session-start")
			cmd.Env = w.env()
			cmd.Dir = w.home
			cmd.Stdin = strings.NewReader(strings.Replace(string(w.payload("claude-session-startup.json")), "9b2f6c1e", "s"+strconv.Itoa(i), 1))
			if err := cmd.Run(); err != nil {
				codes[i] = -1
				if ee, ok := err.(*exec.ExitError); ok {
					codes[i] = ee.ExitCode()
				}
			}
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Errorf("session-start %d exited %d", i, c)
		}
	}
	w.waitBuilds()
	if n := strings.Count(w.log(), "background builder "); n != 1 {
		t.Fatalf("%d builders started, want 1; log:\n%s", n, w.log())
	}
}

// A skill added during a session is injected by the next prompt, and one
// removed is no longer: the embed server watches the project's skills and
// has the index rebuilt before the user has typed the next prompt.
func TestSkillAddedDuringSession(t *testing.T) {
	w := corpusWorld(t)
	mine := t.TempDir()
	w.skills = w.skills + string(os.PathListSeparator) + mine
	w.sessionStart("claude")
	// A first prompt: the server learns which project prompts come from.
	w.hook("claude", "prompt", inSession(t, w, "s", postmortem))
	index := w.modelIndex()
	before, _ := vecfile.ReadHeader(index)
	dir := filepath.Join(mine, "zebra-crossing-audit")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: zebra-crossing-audit\ndescription: Audit pedestrian zebra crossings - stripe paint wear, beacon lamps, kerb dropping and sight lines, with a report per crossing.\n---\n# Zebra crossing audit\n\nWalk each crossing, photograph the stripes, test the beacons, measure the kerb drop.\n"), 0o644)
	// The user takes a moment to type; the index is rebuilt meanwhile.
	waitIndex := func(want int) {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if h, err := vecfile.ReadHeader(index); err == nil && h.Count == want {
				return
			}
		}
		t.Fatalf("index not rebuilt to %d skills; log:\n%s", want, w.log())
	}
	waitIndex(before.Count + 1)
	ask := "audit the zebra crossings on our street: stripe paint wear and the beacon lamps"
	ctx := claudeContext(t, w.hook("claude", "prompt", inSession(t, w, "s", ask)))
	if !strings.Contains(ctx, "zebra-crossing-audit") {
		t.Fatalf("new skill not injected: %s", ctx)
	}
	os.RemoveAll(dir)
	waitIndex(before.Count)
	if out := w.hook("claude", "prompt", inSession(t, w, "t", ask)); strings.Contains(out, "zebra-crossing-audit") {
		t.Fatalf("removed skill injected: %s", out)
	}
}

// ski-embed --gc drops the cached vectors no index holds and keeps the
// others; a build after it embeds nothing again.
func TestEmbeddingCacheGC(t *testing.T) {
	w := newWorld(t)
	w.sessionStart("claude")
	cacheDir := filepath.Join(w.home, ".cache", "ski")
	c, err := embcache.Open(cacheDir, "lexical-v1", 1024, nil)
	if err != nil || c.Len() == 0 {
		t.Fatalf("cache after the build: %v vectors, %v", c.Len(), err)
	}
	held := c.Len()
	stray := make([]float32, 1024)
	stray[7] = 1
	if err := c.Append([]embcache.Key{embcache.KeyOf(0, "a text no skill has")}, [][]float32{stray}); err != nil {
		t.Fatal(err)
	}
	r := w.stage(nil, "ski-embed", "--gc")
	if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("kept %d vectors, dropped 1", held)) {
		t.Fatalf("gc: %+v", r)
	}
	if again, _ := embcache.Open(cacheDir, "lexical-v1", 1024, nil); again.Len() != held {
		t.Fatalf("after gc: %d vectors, want %d", again.Len(), held)
	}
	os.Remove(w.modelIndexOrLexical())
	line := w.refresh()
	if line["embedded"].(float64) != 0 || int(line["cached"].(float64)) != held {
		t.Fatalf("build after gc: %v", line)
	}
}

// modelIndexOrLexical is the world's one index file.
func (w *world) modelIndexOrLexical() string {
	w.t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.indexDir(), "*.skv"))
	if len(files) != 1 {
		w.t.Fatalf("want one index, got %v", files)
	}
	return files[0]
}

// A skill written while the first build embeds the catalog is in the
// lexical index, and injected, before that build ends: a prompt for it
// gets it while there is no index of the model yet.
func TestSkillWrittenDuringFirstBuild(t *testing.T) {
	w := corpusWorld(t)
	mine := t.TempDir()
	w.skills = w.skills + string(os.PathListSeparator) + mine
	w.hook("claude", "session-start", w.payload("claude-session-startup.json"))
	w.builderPID(16)
	dir := filepath.Join(mine, "zebra-crossing-audit")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: zebra-crossing-audit\ndescription: Audit pedestrian zebra crossings - stripe paint wear, beacon lamps, kerb dropping and sight lines, with a report per crossing.\n---\n# Zebra crossing audit\n\nWalk each crossing, photograph the stripes, test the beacons, measure the kerb drop.\n"), 0o644)
	ask := "audit the zebra crossings on our street: stripe paint wear and the beacon lamps"
	for i := 0; ; i++ {
		built := false
		files, _ := filepath.Glob(filepath.Join(w.indexDir(), "*.skv"))
		for _, f := range files {
			if h, err := vecfile.ReadHeader(f); err == nil && h.Model == "bge-small-en-v1.5-q" {
				built = true
			}
		}
		out := w.hook("claude", "prompt", inSession(t, w, fmt.Sprintf("s%d", i), ask))
		if strings.Contains(out, "zebra-crossing-audit") {
			if built {
				t.Fatalf("the new skill came only once the model's index was built; log:\n%s", w.log())
			}
			break
		}
		if built {
			t.Fatalf("the model's index was built before a prompt got the new skill (last payload %q); log:\n%s", out, w.log())
		}
		time.Sleep(100 * time.Millisecond)
	}
	w.waitBuilds()
	idx, err := indexfile.Read(w.modelIndex())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range idx.Entries {
		if e.Skill.Name == "zebra-crossing-audit" {
			return
		}
	}
	t.Fatalf("the model's index after the build lacks the new skill (%d skills)", len(idx.Entries))
}

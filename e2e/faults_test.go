package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/testuser"
	"github.com/skill-inject/ski/internal/vecfile"
)

// The fault-injection suite: every file and folder the hooks touch is
// replaced in turn by something it should not be, and both hooks must
// still exit 0, print nothing or a valid payload, return within their
// limit and leave alone what a symlink points to; once the fault is
// repaired a normal prompt works again.

// faultSession is the session of the prompts the suite sends.
const faultSession = "9b2f6c1e-4a7d-4f3e-8c55-2d0e7f1a6b90"

// unprivileged is the user the permission faults run the hooks as when
// the tests run as root, whom modes and owners do not bite. Run as another
// user, they run the hooks as that user.
const unprivileged = 65534

// hookLimit is how long a hook may take, whatever the fault.
const hookLimit = 2 * time.Second

// faultTarget is one file or folder the hooks touch.
type faultTarget struct {
	name string
	// path is the target's absolute path in a world with home h (a glob
	// matching one file is allowed).
	path func(h string) string
	dir  bool // a folder, not a file
	// server says the target is there only while an embed server runs.
	server bool
	// special says the target is a socket or FIFO: a file fault such as
	// truncation means nothing for it.
	special bool
	// input says ski only reads the target (config, model, runtime): a
	// repair puts the original back instead of removing the fault.
	input bool
}

// faultTargets lists what the hooks touch. Add a path here and every fault
// is tried on it.
var faultTargets = []faultTarget{
	{name: "state dir", path: statePath(""), dir: true},
	{name: "log", path: statePath("hook.log")},
	{name: "ledger dir", path: statePath("sessions"), dir: true},
	{name: "ledger", path: statePath("sessions", faultSession+".json")},
	{name: "ledger lock", path: statePath("sessions", faultSession+".lock")},
	{name: "cache dir", path: cachePath(""), dir: true},
	{name: "index dir", path: cachePath("index"), dir: true},
	{name: "index", path: indexOf("bge-small-en-v1.5-q")},
	{name: "lexical index", path: indexOf("lexical-v1")},
	{name: "index build lock", path: cachePath("index", "claude-*.skv.build.lock")},
	{name: "embeddings dir", path: cachePath("embeddings"), dir: true},
	{name: "embedding cache", path: cachePath("embeddings", "*.vec")},
	{name: "model cache dir", path: cachePath("models"), dir: true},
	{name: "model cache", path: cachePath("models", "*.onnx")},
	{name: "model cache data", path: cachePath("models", "*.onnx.data")},
	{name: "run dir", path: runPath(""), dir: true, server: true},
	{name: "socket", path: runPath("embed-*.sock"), server: true, special: true},
	{name: "fifo", path: runPath("embed-*.sock.in"), server: true, special: true},
	{name: "server lock", path: runPath("embed-*.sock.lock"), server: true},
	{name: "config dir", path: homePath(".config", "ski"), dir: true, input: true},
	{name: "config", path: homePath(".config", "ski", "config.toml"), input: true},
	{name: "model dir", path: homePath("models", "bge-small-en-v1.5-q"), dir: true, input: true},
	{name: "runtime dir", path: homePath("runtime"), dir: true, input: true},
}

func homePath(elem ...string) func(string) string {
	return func(h string) string { return filepath.Join(append([]string{h}, elem...)...) }
}
func statePath(elem ...string) func(string) string {
	return homePath(append([]string{".local", "state", "ski"}, elem...)...)
}
func cachePath(elem ...string) func(string) string {
	return homePath(append([]string{".cache", "ski"}, elem...)...)
}

// indexOf is the path of the claude index of model in a world with home h.
func indexOf(model string) func(string) string {
	return func(h string) string {
		files, _ := filepath.Glob(cachePath("index", "claude-*.skv")(h))
		for _, f := range files {
			if hd, err := vecfile.ReadHeader(f); err == nil && hd.Model == model {
				return f
			}
		}
		return cachePath("index", "no index of "+model)(h)
	}
}

func runPath(elem ...string) func(string) string {
	return homePath(append([]string{"xdg-run", "ski"}, elem...)...)
}

// fault is one way a target can be wrong.
type fault struct {
	name string
	// asUser runs the hooks as the unprivileged user, for faults of
	// modes and owners (as the tests' user, when that is not root).
	asUser bool
	// fileOnly faults make sense only where a regular file belongs.
	fileOnly bool
	// apply puts the fault at path (a file, or a folder when dir) and
	// returns a check run after the hooks, or nil.
	apply func(t *testing.T, path string, dir bool, elsewhere string) func()
}

var faults = []fault{
	{name: "directory", fileOnly: true, apply: func(t *testing.T, path string, dir bool, _ string) func() {
		must(t, os.RemoveAll(path))
		must(t, os.MkdirAll(filepath.Join(path, "inside"), 0o700))
		return nil
	}},
	{name: "dangling symlink", apply: func(t *testing.T, path string, dir bool, elsewhere string) func() {
		target := filepath.Join(elsewhere, "missing")
		must(t, os.RemoveAll(path))
		must(t, os.Symlink(target, path))
		return func() {
			if _, err := os.Lstat(target); err == nil {
				t.Errorf("a dangling symlink's target was created: %s", target)
			}
		}
	}},
	{name: "symlink elsewhere", apply: func(t *testing.T, path string, dir bool, elsewhere string) func() {
		target := filepath.Join(elsewhere, "target")
		must(t, os.Rename(path, target))
		must(t, os.Symlink(target, path))
		before := treeState(t, target)
		return func() {
			if after := treeState(t, target); after != before {
				t.Errorf("the symlink's target changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		}
	}},
	{name: "empty file", apply: func(t *testing.T, path string, dir bool, _ string) func() {
		must(t, os.RemoveAll(path))
		must(t, os.WriteFile(path, nil, 0o600))
		return nil
	}},
	{name: "truncated file", fileOnly: true, apply: func(t *testing.T, path string, dir bool, _ string) func() {
		b, err := os.ReadFile(path)
		must(t, err)
		must(t, os.Remove(path))
		must(t, os.WriteFile(path, b[:len(b)/2], 0o600))
		return nil
	}},
	{name: "garbage", apply: func(t *testing.T, path string, dir bool, _ string) func() {
		must(t, os.RemoveAll(path))
		must(t, os.WriteFile(path, []byte("\x00\xff garbage {\"not\": ski\n\x1b[31m"), 0o600))
		return nil
	}},
	{name: "fifo", fileOnly: true, apply: func(t *testing.T, path string, dir bool, _ string) func() {
		must(t, os.RemoveAll(path))
		must(t, syscall.Mkfifo(path, 0o600))
		return nil
	}},
	{name: "read-only", asUser: true, apply: func(t *testing.T, path string, dir bool, _ string) func() {
		if dir {
			must(t, os.Chmod(path, 0o500))
		} else {
			must(t, os.Chmod(path, 0o400))
		}
		return nil
	}},
	{name: "other owner", asUser: true, apply: func(t *testing.T, path string, dir bool, _ string) func() {
		testuser.NeedRoot(t, "giving a file to another user")
		must(t, os.Lchown(path, 4242, 4242))
		return nil
	}},
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// treeState describes a file or folder: names, kinds, modes, owners and
// contents, to tell whether anything in it changed.
func treeState(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", p, err)
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		st := info.Sys().(*syscall.Stat_t)
		fmt.Fprintf(&b, "%s %v %d:%d %d", strings.TrimPrefix(p, root), info.Mode(), st.Uid, st.Gid, info.Size())
		if info.Mode().IsRegular() && info.Size() < 1<<20 {
			c, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %x", c)
		}
		b.WriteByte('\n')
		return nil
	})
	return b.String()
}

// warmState is what every case starts from, made once: a model and runtime
// any user may read, and a home in which a prompt has run (index, model
// cache, ledger, lock, log).
type warmState struct {
	dir    string // shared, world-readable
	models string // the model directory
	lib    string // the runtime library
	golden string // the home every case copies
	cwd    string // the hooks' working directory
	err    error
}

var (
	warmOnce sync.Once
	warm     warmState
)

func warmUp(t *testing.T) *warmState {
	t.Helper()
	warmOnce.Do(func() { warm.err = warm.make(t) })
	if warm.err != nil {
		t.Fatal(warm.err)
	}
	return &warm
}

func (ws *warmState) make(t *testing.T) error {
	w := newWorld(t)
	realModel(t, w)
	dir, err := os.MkdirTemp("", "ski-faults-")
	if err != nil {
		return err
	}
	ws.dir = dir
	// Left for the process's end: every case links to it.
	os.Chmod(dir, 0o755)
	os.Chmod(binDir, 0o755)
	var srcModels, srcLib string
	for _, kv := range w.extra {
		if v, ok := strings.CutPrefix(kv, "SKI_MODEL_DIR="); ok {
			srcModels = v
		}
		if v, ok := strings.CutPrefix(kv, "ONNXRUNTIME_SHARED_LIBRARY_PATH="); ok {
			srcLib = v
		}
	}
	ws.models = filepath.Join(dir, "models")
	if err := copyTree(filepath.Join(srcModels, "bge-small-en-v1.5-q"), filepath.Join(ws.models, "bge-small-en-v1.5-q"), false); err != nil {
		return err
	}
	ws.lib = filepath.Join(dir, "runtime", "libonnxruntime.so.1")
	if err := copyTree(srcLib, ws.lib, false); err != nil {
		return err
	}
	ws.cwd = filepath.Join(dir, "project")
	os.Mkdir(ws.cwd, 0o755)
	ws.golden = filepath.Join(dir, "golden")
	os.Mkdir(ws.golden, 0o755)
	g := ws.world(t, ws.golden, true)
	if err := os.MkdirAll(filepath.Join(ws.golden, ".config", "ski"), 0o700); err != nil {
		return err
	}
	os.WriteFile(filepath.Join(ws.golden, ".config", "ski", "config.toml"), []byte("max_skills = 2\n"), 0o600)
	g.extra = append(g.extra, "SKI_EMBED_SERVER=0")
	g.sessionStart("claude")
	r := g.run(g.payload("claude-prompt.json"), filepath.Join(repo, "scripts", "hook-claude.sh"), "prompt")
	if !strings.Contains(r.stdout, "postmortem") {
		return fmt.Errorf("the warm-up prompt injected nothing: %+v", r)
	}
	return nil
}

// world is a world with home h that uses the shared model through links
// of its own (so faults on them stay in h).
func (ws *warmState) world(t *testing.T, h string, link bool) *world {
	if link {
		copyTree(ws.models, filepath.Join(h, "models"), true)
		copyTree(ws.lib, filepath.Join(h, "runtime", "libonnxruntime.so.1"), true)
	}
	w := &world{t: t, home: h, skills: filepath.Join(repo, "testdata", "skills"), dir: ws.cwd}
	w.extra = []string{
		"SKI_MODEL_DIR=" + filepath.Join(h, "models"),
		"ONNXRUNTIME_SHARED_LIBRARY_PATH=" + filepath.Join(h, "runtime", "libonnxruntime.so.1"),
		"XDG_RUNTIME_DIR=" + filepath.Join(h, "xdg-run"),
	}
	return w
}

// copyTree copies src to dst; with link, files of 1 MiB or more are hard
// links to src's.
func copyTree(src, dst string, link bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case !info.Mode().IsRegular():
			return nil // sockets, FIFOs, links: a running world's, not copied
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if link && info.Size() >= 1<<20 {
			return os.Link(p, to)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, info.Mode().Perm()|0o600)
	})
}

// chownTree gives everything under root to uid.
func chownTree(root string, uid int) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			os.Lchown(p, uid, uid)
		}
		return nil
	})
}

// timedHook runs a hook, checking it exits 0 within hookLimit and prints
// nothing or one valid payload of its kind.
func timedHook(t *testing.T, w *world, host, mode string, payload []byte) string {
	t.Helper()
	start := time.Now()
	r := w.run(payload, filepath.Join(repo, "scripts", "hook-"+host+".sh"), mode)
	if took := time.Since(start); took > hookLimit {
		t.Errorf("hook-%s.sh %s took %v, over %v", host, mode, took, hookLimit)
	}
	if r.code != 0 {
		t.Errorf("hook-%s.sh %s exited %d; stderr: %s", host, mode, r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("hook-%s.sh %s wrote to the host's stderr: %s", host, mode, r.stderr)
	}
	if r.stdout == "" {
		return ""
	}
	if mode != "prompt" {
		t.Errorf("hook-%s.sh %s printed %q, want nothing", host, mode, r.stdout)
		return r.stdout
	}
	var p map[string]json.RawMessage
	out := strings.TrimSuffix(r.stdout, "\n")
	if strings.Contains(out, "\n") || json.Unmarshal([]byte(out), &p) != nil {
		t.Errorf("hook-%s.sh %s printed an invalid payload: %q", host, mode, r.stdout)
		return r.stdout
	}
	key := "hookSpecificOutput"
	if host == "opencode" {
		key = "inject"
	}
	if _, ok := p[key]; !ok {
		t.Errorf("hook-%s.sh %s printed a payload without %s: %q", host, mode, key, r.stdout)
	}
	return r.stdout
}

// startServer starts the world's embed server and waits for its FIFO.
func startServer(t *testing.T, w *world) {
	t.Helper()
	w.extra = append(w.extra, "SKI_EMBED_SERVER=1")
	r := w.run(nil, filepath.Join(binDir, "ski-embed"), "--serve", "--detach")
	if r.code != 0 {
		t.Fatalf("start server: %+v", r)
	}
	for i := 0; i < 500; i++ {
		if m, _ := filepath.Glob(runPath("embed-*.sock.in")(w.home)); len(m) == 1 {
			if m, _ := filepath.Glob(runPath("embed-*.sock")(w.home)); len(m) == 1 {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the embed server did not come up")
}

// killServers ends the world's embed servers, found by their command line
// naming the world's run dir in their environment.
func killServers(h string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte("HOME="+h+"\x00")) {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(strings.TrimPrefix(p, "/proc/"), "%d/environ", &pid); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func TestHookFaults(t *testing.T) {
	ws := warmUp(t)
	only := os.Getenv("SKI_FAULT_TARGET") // a maintainer's shortcut to one target
	for _, target := range faultTargets {
		if only != "" && target.name != only {
			continue
		}
		for _, f := range faults {
			if f.fileOnly && (target.dir || target.special) {
				continue
			}
			t.Run(target.name+"/"+f.name, func(t *testing.T) { runFault(t, ws, target, f) })
		}
	}
}

func runFault(t *testing.T, ws *warmState, target faultTarget, f fault) {
	h, err := os.MkdirTemp("", "ski-fault-home-")
	must(t, err)
	t.Cleanup(func() { killServers(h); os.RemoveAll(h) })
	os.Chmod(h, 0o755)
	must(t, copyTree(ws.golden, h, true))
	w := ws.world(t, h, true)
	os.MkdirAll(filepath.Join(h, "xdg-run"), 0o700)
	if target.server {
		startServer(t, w)
	} else {
		w.extra = append(w.extra, "SKI_EMBED_SERVER=0")
	}
	// As root, the permission faults run the hooks as another user.
	asOther := f.asUser && os.Getuid() == 0
	if asOther {
		chownTree(h, unprivileged)
		w.cred = &syscall.Credential{Uid: unprivileged, Gid: unprivileged}
		if target.server {
			// The server ran as root; the user's own starts on demand.
			killServers(h)
			chownTree(h, unprivileged)
			startServer(t, w)
		}
	}
	path := target.path(h)
	if m, _ := filepath.Glob(path); len(m) == 1 {
		path = m[0]
	} else {
		t.Fatalf("%s: want one match for %s, got %v", target.name, path, m)
	}
	saved := filepath.Join(t.TempDir(), "saved")
	if target.input {
		must(t, copyTree(path, saved, false))
	}
	elsewhere := filepath.Join(h, "elsewhere")
	must(t, os.Mkdir(elsewhere, 0o700))
	if asOther {
		os.Lchown(elsewhere, unprivileged, unprivileged)
	}
	check := f.apply(t, path, target.dir, elsewhere)

	prompt := w.payload("claude-prompt.json")
	timedHook(t, w, "claude", "session-start", w.payload("claude-session-startup.json"))
	timedHook(t, w, "claude", "prompt", prompt)
	timedHook(t, w, "opencode", "prompt", w.payload("opencode-prompt.json"))
	timedHook(t, w, "claude", "observe", w.payload("claude-read-skill.json"))
	timedHook(t, w, "opencode", "session-start", w.payload("opencode-session-compact.json"))
	if check != nil {
		check()
	}

	// Repair: the fault goes (an input gets its original back), and a
	// prompt of the same session that names another skill works again.
	killServers(h)
	os.Chmod(path, 0o700)
	os.Lchown(path, 0, 0)
	must(t, os.RemoveAll(path))
	if target.input {
		must(t, copyTree(saved, path, false))
	}
	if asOther {
		chownTree(h, unprivileged)
	}
	// What was removed is rebuilt in the background, as after a new
	// install; the prompt comes once the index is ready again.
	w.waitReady("claude", w.payload("claude-session-startup.json"))
	csv := withPrompt(t, prompt, "clean up this messy csv export: duplicate rows, mixed date formats and stray whitespace")
	if out := timedHook(t, w, "claude", "prompt", csv); !strings.Contains(out, "csv-cleaning") {
		var log []byte
		if b, err := os.ReadFile(statePath("hook.log")(h)); err == nil {
			log = b
		}
		t.Errorf("after the repair, a csv prompt injected %q; log:\n%s", out, tail(log, 15))
	}
}

// tail is the last n lines of b.
func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

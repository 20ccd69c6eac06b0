// Package e2e builds the ski binaries and drives the stages and both hook
// scripts the way Claude Code and the opencode plugin do, with realistic
// payloads from testdata/payloads.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skill-inject/ski/internal/testhome"
)

var (
	repo   string // repository root
	binDir string // freshly built stages
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		// No test writes into the home of the user running them.
		leave, err := testhome.Enter()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer leave()
		wd, _ := os.Getwd()
		repo = filepath.Dir(wd)
		dir, err := os.MkdirTemp("", "ski-e2e-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		build := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/...")
		build.Dir = repo
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
			return 1
		}
		binDir = dir
		return m.Run()
	}())
}

// world is one isolated user: home, XDG directories and skill roots.
type world struct {
	t      testing.TB
	home   string
	skills string // SKI_ROOTS
	extra  []string
	dir    string              // the working directory; the home when empty
	cred   *syscall.Credential // the user to run as; this process's when nil
}

func newWorld(t testing.TB) *world {
	t.Helper()
	home := t.TempDir()
	w := &world{t: t, home: home, skills: filepath.Join(repo, "testdata", "skills")}
	t.Cleanup(w.stopServers)
	return w
}

// stopServers stops the embed servers the world's hooks started (their
// lock files hold their process ids) and its background index builders
// (their progress files do), and waits for the builders to be gone. A
// builder holds its lock from before it starts, but writes its progress
// file only once it runs: each round of the wait stops the builders whose
// progress has appeared since, so none is left writing into the world's
// folder while it is removed.
func (w *world) stopServers() {
	index := filepath.Join(w.home, ".cache", "ski", "index")
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		progress, _ := filepath.Glob(filepath.Join(index, "*.progress"))
		for _, p := range progress {
			var pr struct{ PID int }
			if b, err := os.ReadFile(p); err == nil && json.Unmarshal(b, &pr) == nil && pr.PID > 0 {
				syscall.Kill(pr.PID, syscall.SIGKILL)
			}
		}
		locks, _ := filepath.Glob(filepath.Join(index, "*.build.lock"))
		busy := false
		for _, l := range locks {
			busy = busy || held(l)
		}
		if !busy {
			break
		}
	}
	locks, _ := filepath.Glob(filepath.Join(w.home, ".local", "state", "ski", "run", "*.lock"))
	for _, l := range locks {
		b, _ := os.ReadFile(l)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
	}
	// Then whatever else of the world still runs (a hook's background
	// check that has not taken a builder's lock yet): every process with
	// the world's HOME.
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		pids := w.processes()
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		if len(pids) == 0 {
			return
		}
	}
}

// processes lists the processes whose environment holds the world's HOME.
func (w *world) processes() []int {
	var out []int
	want := []byte("\x00HOME=" + w.home + "\x00")
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err == nil && bytes.Contains(append([]byte{0}, env...), want) {
			out = append(out, pid)
		}
	}
	return out
}

func (w *world) env() []string {
	env := []string{
		"HOME=" + w.home,
		"PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(w.home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(w.home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(w.home, ".local", "share"),
		"SKI_BIN=" + binDir,
		"SKI_ROOTS=" + w.skills,
		// No embed server unless a test asks for one (server_test.go).
		"SKI_EMBED_SERVER=0",
	}
	return append(env, w.extra...)
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs a command with stdin in the world.
func (w *world) run(stdin []byte, name string, args ...string) result {
	w.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = w.env()
	cmd.Dir = w.home
	if w.dir != "" {
		cmd.Dir = w.dir
	}
	if w.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.cred}
	}
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("%s: %v", name, err)
	}
	return result{out.String(), errb.String(), code}
}

// hook runs scripts/hook-<host>.sh mode with a payload and checks that it
// exits 0, as a hook must whatever happens.
func (w *world) hook(host, mode string, payload []byte) string {
	w.t.Helper()
	r := w.run(payload, filepath.Join(repo, "scripts", "hook-"+host+".sh"), mode)
	if r.code != 0 {
		w.t.Fatalf("hook-%s.sh %s exited %d; stderr: %s", host, mode, r.code, r.stderr)
	}
	return r.stdout
}

// stage runs one ski stage.
func (w *world) stage(stdin []byte, name string, args ...string) result {
	w.t.Helper()
	return w.run(stdin, filepath.Join(binDir, name), args...)
}

// payload reads testdata/payloads/NAME with __SKILLS__ set to the skill root.
func (w *world) payload(name string) []byte {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, "testdata", "payloads", name))
	if err != nil {
		w.t.Fatal(err)
	}
	return bytes.ReplaceAll(b, []byte("__SKILLS__"), []byte(w.skills))
}

// withPrompt returns a payload with its prompt replaced.
func withPrompt(t testing.TB, payload []byte, prompt string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	m["prompt"] = prompt
	b, _ := json.Marshal(m)
	return b
}

// claudeContext parses a Claude payload and returns its additionalContext,
// failing unless the output is exactly one valid payload.
func claudeContext(t testing.TB, out string) string {
	t.Helper()
	if strings.Count(strings.TrimSpace(out), "\n") != 0 || out == "" {
		t.Fatalf("want exactly one payload line, got %q", out)
	}
	var p struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("not a Claude payload: %v: %s", err, out)
	}
	if p.HookSpecificOutput.HookEventName != "UserPromptSubmit" || p.HookSpecificOutput.AdditionalContext == "" {
		t.Fatalf("incomplete Claude payload: %s", out)
	}
	return p.HookSpecificOutput.AdditionalContext
}

// sessionStart runs the host's session-start hook as a host starts a
// session, and waits for the background index build it starts: hooks never
// build an index themselves, and a prompt before the build is done is
// answered from the lexical index.
func (w *world) sessionStart(host string) {
	w.t.Helper()
	name := map[string]string{"claude": "claude-session-startup.json", "opencode": "opencode-session-startup.json"}[host]
	w.hook(host, "session-start", w.payload(name))
	w.waitReady(host, w.payload(name))
}

// waitReady waits until the index check the session-start hook runs in the
// background says the host's index is current: the same check, repeated
// (it starts no second builder while one runs).
func (w *world) waitReady(host string, event []byte) {
	w.t.Helper()
	for end := time.Now().Add(90 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		r := w.stage(event, "ski-embed", "--refresh", "--background", "--host", host)
		if r.code != 0 {
			w.t.Fatalf("index check: %+v", r)
		}
		if strings.Contains(r.stdout, `"state":"current"`) {
			w.waitBuilds()
			return
		}
	}
	log, _ := os.ReadFile(filepath.Join(w.home, ".local", "state", "ski", "hook.log"))
	w.t.Fatalf("index not current after 90 s; hook.log:\n%s", log)
}

// waitBuilds waits until no background index builder of the world runs
// (each holds the lock beside the index it builds) and an index is there.
func (w *world) waitBuilds() {
	w.t.Helper()
	dir := filepath.Join(w.home, ".cache", "ski", "index")
	deadline := time.Now().Add(90 * time.Second)
	for {
		locks, _ := filepath.Glob(filepath.Join(dir, "*.build.lock"))
		indexes, _ := filepath.Glob(filepath.Join(dir, "*.skv"))
		busy := ""
		if len(indexes) == 0 {
			busy = "no index yet"
		}
		for _, l := range locks {
			if held(l) {
				busy = l
			}
		}
		if busy == "" {
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(w.home, ".local", "state", "ski", "hook.log"))
			w.t.Fatalf("background build not done after 90 s: %s\nhook.log:\n%s", busy, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// held reports whether another process holds the flock on path.
func held(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

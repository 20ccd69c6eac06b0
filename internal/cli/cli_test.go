package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/environ"
)

// A time limit of 0 stops the command before it runs; one that is not whole
// seconds is a usage error.
func TestMainTimeout(t *testing.T) {
	for _, c := range []struct {
		value, stderr string
		code          int
	}{
		{"0", "ski-x: deadline passed (SKI_STAGE_TIMEOUT=0)", ExitError},
		{"1.5", `ski-x: SKI_STAGE_TIMEOUT="1.5": want whole seconds`, ExitUsage},
		{"-1", `ski-x: SKI_STAGE_TIMEOUT="-1": want whole seconds`, ExitUsage},
	} {
		var stderr bytes.Buffer
		env := Env{Stderr: &stderr, Environ: environ.FromMap(map[string]string{TimeoutEnv: c.value})}
		ran := false
		code := Main("ski-x", env, func(Env) error { ran = true; return nil })
		if code != c.code || ran || !strings.Contains(stderr.String(), c.stderr) {
			t.Errorf("%s: code %d, ran %v, stderr %q", c.value, code, ran, stderr.String())
		}
	}
	var stderr bytes.Buffer
	env := Env{Stderr: &stderr, Environ: environ.FromMap(map[string]string{TimeoutEnv: "10"})}
	ran := false
	if code := Main("ski-x", env, func(Env) error { ran = true; return nil }); code != ExitOK || !ran {
		t.Errorf("10 s: code %d, ran %v, stderr %q", code, ran, stderr.String())
	}
}

// The user's SKI_HOOK_TIMEOUT is the hooks' to pass on: a stage run by
// hand with it set has no time limit.
func TestHookTimeoutIsNotTheStages(t *testing.T) {
	env := Env{Stderr: &bytes.Buffer{}, Environ: environ.FromMap(map[string]string{"SKI_HOOK_TIMEOUT": "0"})}
	ran := false
	if code := Main("ski-x", env, func(Env) error { ran = true; return nil }); code != ExitOK || !ran {
		t.Fatalf("code %d, ran %v", code, ran)
	}
}

// --version prints the release, and the commit when the build set one.
func TestVersion(t *testing.T) {
	defer func(c string) { Commit = c }(Commit)
	for _, c := range []struct{ commit, want string }{
		{"", "ski-x " + Release + "\n"},
		{"1a2b3c4", "ski-x " + Release + " (commit 1a2b3c4)\n"},
	} {
		Commit = c.commit
		var out bytes.Buffer
		env := Env{Args: []string{"--version"}, Stdout: &out, Stderr: &out}
		code := Main("ski-x", env, func(env Env) error { return Parse(NewFlags("ski-x", "doc", env), env) })
		if code != ExitOK || out.String() != c.want {
			t.Errorf("commit %q: code %d, output %q, want %q", c.commit, code, out.String(), c.want)
		}
	}
}

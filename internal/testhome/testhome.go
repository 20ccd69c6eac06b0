// Package testhome gives a package's tests a home of their own: HOME and the
// XDG folders in a new temporary directory, so that no test writes into the
// home of the user running the tests. What the set-up installed is read
// where it put it, and go commands keep the user's Go settings and caches.
package testhome

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-inject/ski/internal/environ"
)

// Installed are the variables that point a test at what the set-up
// installed for the user running the tests; Run sets each one not set.
var Installed = []string{"SKI_MODEL_DIR", "ONNXRUNTIME_SHARED_LIBRARY_PATH", "SKI_SETUP_CACHE"}

// goVars are Go's settings file and caches, kept for go commands the tests
// run.
var goVars = []string{"GOENV", "GOCACHE", "GOMODCACHE", "GOPATH"}

// Run runs the tests of m in a temporary home (Enter) and returns their
// exit code: use it as TestMain's body.
func Run(m *testing.M) int {
	leave, err := Enter()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testhome:", err)
		return 1
	}
	defer leave()
	return m.Run()
}

// Enter moves this process into a new temporary home, and returns the
// func that removes it. Before it moves HOME, it points SKI_MODEL_DIR,
// ONNXRUNTIME_SHARED_LIBRARY_PATH and SKI_SETUP_CACHE at the user's
// installed models, runtime and set-up cache, and GOENV, GOCACHE,
// GOMODCACHE and GOPATH at the user's, unless they are set.
func Enter() (func(), error) {
	home, err := os.MkdirTemp("", "ski-test-home-")
	if err != nil {
		return nil, err
	}
	leave := func() { os.RemoveAll(home) }
	if err := move(home); err != nil {
		leave()
		return nil, err
	}
	return leave, nil
}

// move points the installed things and Go's at the user's folders, then
// HOME and the XDG folders at home.
func move(home string) error {
	env := environ.FromOS()
	cacheHome := filepath.Dir(env.Dirs.Cache)
	installed := map[string]string{
		"SKI_MODEL_DIR":                   filepath.Join(env.Dirs.Data, "models"),
		"ONNXRUNTIME_SHARED_LIBRARY_PATH": filepath.Join(env.Dirs.Data, "runtime", "libonnxruntime.so.1"),
		"SKI_SETUP_CACHE":                 filepath.Join(cacheHome, "ski-setup"),
	}
	for _, k := range Installed {
		if os.Getenv(k) == "" {
			os.Setenv(k, installed[k])
		}
	}
	if out, err := exec.Command("go", append([]string{"env"}, goVars...)...).Output(); err == nil {
		for i, v := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if i < len(goVars) && os.Getenv(goVars[i]) == "" {
				os.Setenv(goVars[i], v)
			}
		}
	}
	os.Unsetenv("XDG_RUNTIME_DIR")
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": ".config", "XDG_CACHE_HOME": ".cache",
		"XDG_DATA_HOME": ".local/share", "XDG_STATE_HOME": ".local/state"} {
		if k != "HOME" {
			v = filepath.Join(home, v)
		}
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}

//go:build !ski_lexical_only

package onnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/skill-inject/ski/internal/embed"
)

// libName is the shared library's file name on Linux.
const libName = "libonnxruntime.so.1"

var (
	initOnce sync.Once
	initLib  string
	initErr  error
)

// RuntimeCandidates lists where the ONNX Runtime library is looked for, in
// order: the config or flag, ONNXRUNTIME_SHARED_LIBRARY_PATH, beside the
// executable, ski's data directory, and the system loader path (a bare
// name). The first two must exist when given; the others are tried when
// present.
func RuntimeCandidates(env embed.Env) (must []string, maybe []string) {
	if env.Runtime != "" {
		must = append(must, env.Runtime)
	}
	if p := env.Environ.OnnxRuntime; p != "" {
		must = append(must, p)
	}
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		maybe = append(maybe, filepath.Join(dir, libName), filepath.Join(dir, "libonnxruntime.so"))
	}
	maybe = append(maybe, filepath.Join(env.Environ.Dirs.Data, "runtime", libName))
	return must, maybe
}

// findRuntime picks the library to load.
func findRuntime(env embed.Env) (string, error) {
	must, maybe := RuntimeCandidates(env)
	if len(must) > 0 {
		if _, err := os.Stat(must[0]); err != nil {
			return "", fmt.Errorf("ONNX Runtime library %s: %w", must[0], errors.Unwrap(err))
		}
		return must[0], nil
	}
	for _, p := range maybe {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return libName, nil // let the system loader search
}

// initRuntime loads ONNX Runtime once per process.
func initRuntime(env embed.Env) error {
	initOnce.Do(func() {
		lib, err := findRuntime(env)
		if err != nil {
			initErr = err
			return
		}
		initLib = lib
		ort.SetSharedLibraryPath(lib)
		if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
			_, maybe := RuntimeCandidates(env)
			initErr = fmt.Errorf("load ONNX Runtime (%s): %s; ski needs ONNX Runtime >= 1.24: scripts/setup.sh installs it, or set ONNXRUNTIME_SHARED_LIBRARY_PATH (looked in %s and the system loader path)",
				lib, firstLine(err), strings.Join(maybe, ", "))
		}
	})
	return initErr
}

// RuntimeLibrary reports which library was loaded ("" before the first Open).
func RuntimeLibrary() string { return initLib }

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// systemHasRuntime reports whether the system loader knows the library:
// it is in a directory of the loader path (LD_LIBRARY_PATH) or a standard
// library directory.
func systemHasRuntime(loaderPath []string) bool {
	dirs := append(slices.Clone(loaderPath), "/usr/local/lib", "/usr/lib", "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64")
	for _, d := range dirs {
		for _, name := range []string{libName, "libonnxruntime.so"} {
			if _, err := os.Stat(filepath.Join(d, name)); err == nil {
				return true
			}
		}
	}
	return false
}

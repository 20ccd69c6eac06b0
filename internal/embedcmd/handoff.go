package embedcmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// RuntimeBinary is the ski-embed binary that links the model runtime.
const RuntimeBinary = "ski-embed-onnx"

// runtimeBinaryPath finds name beside this executable, else on PATH, as
// that program will see itself (os.Executable: absolute, symlinks
// resolved), which is what it reports as its build to embed server clients.
func runtimeBinaryPath(name string) (string, error) {
	p := ""
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		if beside := filepath.Join(filepath.Dir(exe), name); fileExists(beside) {
			p = beside
		}
	}
	if p == "" {
		var err error
		if p, err = exec.LookPath(name); err != nil {
			return "", fmt.Errorf("%s (the half of ski-embed that loads models) is neither beside this executable nor on PATH; run scripts/setup.sh", name)
		}
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Abs(p)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Exec replaces this process with the binary name, found beside this
// executable or on PATH, run with args. It returns only on failure.
func Exec(name string, args []string) error {
	path, err := runtimeBinaryPath(name)
	if err != nil {
		return err
	}
	err = syscall.Exec(path, append([]string{path}, args...), os.Environ())
	return fmt.Errorf("run %s: %w", path, err)
}

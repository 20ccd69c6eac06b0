package embedsrv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// ServerBinary is the program that links the model runtime and runs the
// embed servers (the half of ski-embed that loads models).
const ServerBinary = "ski-embed-onnx"

// FindBinary finds the program name beside this executable, else on PATH,
// as that program will see itself (os.Executable: absolute, symlinks
// resolved), which is what it reports as its build to clients (BuildOf).
func FindBinary(name string) (string, error) {
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

package embedcmd

import (
	"fmt"
	"syscall"

	"github.com/skill-inject/ski/internal/embedsrv"
)

// Exec replaces this process with the binary name, found beside this
// executable or on PATH, run with args and the environment env (NAME=value
// each). It returns only on failure.
func Exec(name string, args, env []string) error {
	path, err := embedsrv.FindBinary(name)
	if err != nil {
		return err
	}
	err = syscall.Exec(path, append([]string{path}, args...), env)
	return fmt.Errorf("run %s: %w", path, err)
}

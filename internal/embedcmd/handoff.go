package embedcmd

import (
	"fmt"
	"os"
	"syscall"

	"github.com/skill-inject/ski/internal/embedsrv"
)

// Exec replaces this process with the binary name, found beside this
// executable or on PATH, run with args. It returns only on failure.
func Exec(name string, args []string) error {
	path, err := embedsrv.FindBinary(name)
	if err != nil {
		return err
	}
	err = syscall.Exec(path, append([]string{path}, args...), os.Environ())
	return fmt.Errorf("run %s: %w", path, err)
}

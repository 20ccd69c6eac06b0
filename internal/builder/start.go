package builder

import (
	"fmt"
	"os"

	"github.com/skill-inject/ski/internal/spawn"
)

// Command is how to run a builder: the executable and its arguments (the
// build lock comes on descriptor FD), its environment and where its
// messages go (nil: nowhere).
type Command struct {
	Exe  string
	Args []string
	Env  []string
	Log  *os.File
}

// Start starts a detached builder for p with cmd unless one holds the
// build lock already, and reports whether it started one. The lock is
// taken here and handed to the builder, so any number of hooks starting at
// once start one builder between them.
func Start(p Project, cmd Command) (bool, error) {
	lock, ok, err := Lock(p, false)
	if err != nil || !ok {
		return false, err
	}
	defer lock.Close() // the builder holds its own copy
	if err := spawn.With(cmd.Env, cmd.Log, []uintptr{lock.Fd()}, cmd.Exe, cmd.Args...); err != nil {
		return false, fmt.Errorf("start builder: %w", err)
	}
	return true, nil
}

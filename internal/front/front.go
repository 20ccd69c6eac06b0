// Package front is the ski command: the stages installed beside it under
// short names (ski scan, ski rank, ...), and what a person asks when ski
// stays silent or misbehaves: doctor, status, why, stats, history and
// version.
package front

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/config"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/settings"
	"github.com/skill-inject/ski/internal/xdg"
)

// Stages are the commands "ski NAME" runs as ski-NAME from beside ski.
var Stages = []string{"scan", "embed", "rank", "select", "ledger", "render", "install", "eval"}

// commands are ski's own subcommands, in the order the manual lists them.
var commands = []struct {
	name string
	run  func(w *world, args []string) error
}{
	{"doctor", runDoctor},
	{"status", runStatus},
	{"why", runWhy},
	{"search", runSearch},
	{"stats", runStats},
	{"history", runHistory},
	{"version", runVersion},
}

// Run runs the ski command with env; manual is its --help text.
func Run(env cli.Env, manual string) error {
	fs := cli.NewFlags("ski", manual, env)
	if err := cli.Parse(fs, env); err != nil {
		return err
	}
	args := fs.Args()
	if len(args) == 0 {
		fs.Usage()
		return cli.Usagef("missing command")
	}
	name, rest := args[0], args[1:]
	if name == "help" {
		fs.Usage()
		return nil
	}
	bin, err := binDir()
	if err != nil {
		return err
	}
	for _, s := range Stages {
		if s == name {
			return execStage(bin, "ski-"+name, rest, env.Environ.List())
		}
	}
	for _, c := range commands {
		if c.name == name {
			w, err := newWorld(env, bin)
			if err != nil {
				return err
			}
			return c.run(w, rest)
		}
	}
	return cli.Usagef("unknown command %q (want one of %s, or a stage: %s)", name, commandNames(), strings.Join(Stages, ", "))
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// binDir is the directory of the running ski, symbolic links resolved:
// where install.sh and setup.sh put the stages.
func binDir() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locate ski: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Dir(exe), nil
}

// execStage replaces ski with the stage of that name beside it, so the
// stage reads ski's input, writes its output and returns its exit status;
// it gets env (NAME=value each).
func execStage(bin, name string, args, env []string) error {
	path := filepath.Join(bin, name)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%s is not installed beside ski in %s (run scripts/install.sh, or scripts/setup.sh in a checkout)", name, bin)
	}
	if err := syscall.Exec(path, append([]string{name}, args...), env); err != nil {
		return fmt.Errorf("run %s: %w", path, err)
	}
	return nil
}

// world is what ski's own commands look at: the user's directories, the
// project and host, the config in force, and the stages beside ski.
type world struct {
	env      cli.Env
	dirs     xdg.Dirs
	bin      string
	cwd      string
	host     string
	res      *settings.Resolver
	warnings []string // config problems, one line each
}

func newWorld(env cli.Env, bin string) (*world, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("current directory: %w", err)
	}
	w := &world{env: env, dirs: env.Environ.Dirs, bin: bin, cwd: cwd, host: record.HostClaude}
	w.res = &settings.Resolver{Env: env.Environ, Warn: func(s string) { w.warnings = append(w.warnings, s) }}
	return w, nil
}

// flags returns a flag set for a subcommand with the options every one of
// them shares (--host, --cwd); parse it with w.parse.
func (w *world) flags(name, doc string) *flagSet {
	fs := cli.NewFlags("ski "+name, doc, w.env)
	f := &flagSet{FlagSet: fs}
	fs.StringVar(&f.host, "host", record.HostClaude, "the host to look at: claude or opencode")
	fs.StringVar(&f.cwd, "cwd", "", "the project `dir` (default: the current directory)")
	return f
}

func (w *world) parse(f *flagSet, args []string) error {
	env := w.env
	env.Args = args
	if err := cli.Parse(f.FlagSet, env); err != nil {
		return err
	}
	if f.host != record.HostClaude && f.host != record.HostOpencode {
		return cli.Usagef("--host %q: want %s or %s", f.host, record.HostClaude, record.HostOpencode)
	}
	w.host = f.host
	if f.cwd != "" {
		abs, err := filepath.Abs(f.cwd)
		if err != nil {
			return fmt.Errorf("--cwd %q: %w", f.cwd, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return fmt.Errorf("--cwd %s: not a directory", abs)
		}
		w.cwd = abs
	}
	return nil
}

// parseNoArgs is parse for subcommands that take flags only.
func (w *world) parseNoArgs(f *flagSet, args []string) error {
	if err := w.parse(f, args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return cli.Usagef("unexpected argument %q", f.Arg(0))
	}
	return nil
}

// flagSet is a subcommand's flags with the shared ones.
type flagSet struct {
	*flag.FlagSet
	host, cwd string
}

// config is the merged config for the project.
func (w *world) config() config.Config { return w.res.Config(w.cwd) }

// model is the model the project's config asks for.
func (w *world) model() string { return w.res.Model(w.cwd) }

// scanOptions are the options the hooks' stages scan the project with.
func (w *world) scanOptions() scan.Options {
	return scan.ForDir(w.env.Environ, w.config(), w.host, w.cwd, w.res.Warn)
}

// stage runs the stage name from beside ski with stdin, in the project
// directory, and returns its output; a failure carries its last message.
func (w *world) stage(stdin []byte, name string, args ...string) ([]byte, error) {
	out, _, err := w.stageEnv(stdin, nil, name, args...)
	return out, err
}

// stageEnv is stage with variables added to the environment, also
// returning what the stage wrote on stderr.
func (w *world) stageEnv(stdin []byte, env []string, name string, args ...string) (stdout []byte, stderr string, err error) {
	cmd := exec.Command(filepath.Join(w.bin, name), args...)
	cmd.Dir = w.cwd
	cmd.Env = append(w.env.Environ.List(), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) && msg != "" {
			return out.Bytes(), errb.String(), errors.New(msg)
		}
		return out.Bytes(), errb.String(), fmt.Errorf("%s: %w", name, err)
	}
	return out.Bytes(), errb.String(), nil
}

func runVersion(w *world, args []string) error {
	f := w.flags("version", "Usage: ski version\n\nPrints ski's version, and the commit it was built from when the build recorded one.")
	if err := w.parseNoArgs(f, args); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w.env.Stdout, "ski %s\n", cli.Version())
	return err
}

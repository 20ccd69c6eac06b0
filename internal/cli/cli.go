// Package cli holds what every ski command shares: flag parsing with
// --help and --version, exit codes, and the one-line error convention.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/skill-inject/ski/internal/environ"
)

// Exit codes shared by every stage.
const (
	ExitOK    = 0 // ran, even if it wrote nothing
	ExitError = 1 // runtime failure
	ExitUsage = 2 // bad flags or arguments
)

// UsageError marks an error caused by how the command was called.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError.
func Usagef(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

// Env is a command's world: arguments, standard streams and the
// environment variables, resolved, so tests can run a command without
// touching the process's own.
type Env struct {
	Args    []string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Environ environ.Env
}

// OSEnv is the real process environment.
func OSEnv() Env {
	return Env{Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Environ: environ.FromOS()}
}

// TimeoutEnv names the environment variable that limits, in whole seconds
// from its start, how long a stage may run. The hooks set it for every
// stage of a pipeline (which start together) from the user's
// SKI_HOOK_TIMEOUT: one time limit for the whole pipeline without a timeout
// process per stage, and none on stages run by hand.
const TimeoutEnv = "SKI_STAGE_TIMEOUT"

// Main runs fn, prints its error as "name: message" and returns the exit
// code. When $SKI_STAGE_TIMEOUT seconds pass first, it exits 1 at once;
// when the limit is 0, fn does not run.
func Main(name string, env Env, fn func(Env) error) int {
	if v := env.Environ.StageTimeout; v != "" {
		secs, err := strconv.ParseUint(v, 10, 31)
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s: %s=%q: want whole seconds\n", name, TimeoutEnv, v)
			return ExitUsage
		}
		late := func() { fmt.Fprintf(env.Stderr, "%s: deadline passed (%s=%d)\n", name, TimeoutEnv, secs) }
		if secs == 0 {
			late()
			return ExitError
		}
		t := time.AfterFunc(time.Duration(secs)*time.Second, func() {
			late()
			os.Exit(ExitError)
		})
		defer t.Stop()
	}
	err := fn(env)
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errHelp):
		return ExitOK
	case isUsage(err):
		fmt.Fprintf(env.Stderr, "%s: %v\n%s: run '%s --help' for usage\n", name, err, name, name)
		return ExitUsage
	default:
		fmt.Fprintf(env.Stderr, "%s: %v\n", name, err)
		return ExitError
	}
}

func isUsage(err error) bool {
	var u UsageError
	return errors.As(err, &u)
}

var errHelp = errors.New("help shown")

// NewFlags returns a flag set whose --help prints doc (the command's manual)
// followed by the flag defaults to stdout.
func NewFlags(name, doc string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		out := env.Stdout
		fmt.Fprint(out, strings.TrimRight(doc, "\n")+"\n\nFlags:\n")
		fs.SetOutput(out)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// Parse parses args, handling --help and --version. It returns errHelp (which
// Main turns into exit 0) when the command should stop without error.
func Parse(fs *flag.FlagSet, env Env) error {
	version := fs.Bool("version", false, "print the version and exit")
	// The flag package calls Usage on every parse error; the manual is only
	// wanted for -h and --help, so hold it back and show it here.
	manual := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(env.Args)
	fs.Usage = manual
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			manual()
			return errHelp
		}
		return UsageError{err}
	}
	if *version {
		fmt.Fprintf(env.Stdout, "%s %s\n", fs.Name(), Version())
		return errHelp
	}
	return nil
}

// ParseNoArgs is Parse for commands that take flags only: a positional
// argument is a usage error.
func ParseNoArgs(fs *flag.FlagSet, env Env) error {
	if err := Parse(fs, env); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// Release is ski's version, bumped on each release together with the
// plugin manifests (.claude-plugin/plugin.json, marketplace.json).
const Release = "0.1.0"

// Commit is the commit the binaries were built from, set at build time by
// scripts/setup.sh (go build -ldflags "-X ...cli.Commit=..."); empty when
// built otherwise.
var Commit string

// Version is the release, with the commit when the build recorded one:
// "0.1.0" or "0.1.0 (commit 1a2b3c4)".
func Version() string {
	if Commit == "" {
		return Release
	}
	return Release + " (commit " + Commit + ")"
}

// IsTerminal reports whether w is a terminal (for progress output).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// StringList is a repeatable string flag.
type StringList []string

func (s *StringList) String() string { return strings.Join(*s, ",") }

// Set appends one value.
func (s *StringList) Set(v string) error { *s = append(*s, v); return nil }

// Manual is a command's --help text from the source of its doc.go, whose
// package comment is the manual (one /* */ comment in Go doc format): the
// comment's text, its "# Heading" lines shown as "Heading:" and the tab
// that starts a code line as two spaces. A "# Flags" section is left out:
// the flags' live defaults follow the manual.
func Manual(docSource string) string {
	var out []string
	skipping := false
	for _, line := range strings.Split(docComment(docSource), "\n") {
		if h, ok := strings.CutPrefix(line, "# "); ok {
			if skipping = h == "Flags"; skipping {
				continue
			}
			line = h + ":"
		}
		if !skipping {
			out = append(out, plain(line))
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n")) + "\n"
}

// Section is the text of one "# Heading" section of the manual in
// docSource, without its heading, as Manual shows it; "" when there is
// none.
func Section(docSource, heading string) string {
	_, s, ok := strings.Cut(docComment(docSource), "\n# "+heading+"\n")
	if !ok {
		return ""
	}
	s, _, _ = strings.Cut(s, "\n# ")
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = plain(l)
	}
	return strings.Join(lines, "\n")
}

// plain is a line of a doc comment as a terminal shows it: a code line's
// leading tab as two spaces.
func plain(line string) string {
	if code, ok := strings.CutPrefix(line, "\t"); ok {
		return "  " + code
	}
	return line
}

// docComment is the text of the /* */ comment in a doc.go's source.
func docComment(src string) string {
	if _, after, ok := strings.Cut(src, "/*\n"); ok {
		src = after
	}
	if before, _, ok := strings.Cut(src, "*/"); ok {
		src = before
	}
	return src
}

// Warner returns a function that writes "name: warning: msg" lines to w:
// how every command reports what it works around.
func Warner(name string, w io.Writer) func(msg string) {
	return func(msg string) { fmt.Fprintf(w, "%s: warning: %s\n", name, msg) }
}

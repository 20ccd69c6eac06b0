// Package ledgercmd is the ski-ledger command: its subcommands record,
// observe, rearm, show, stats and gc over the session ledgers (package
// ledger); its manual is cmd/ski-ledger's doc.go.
package ledgercmd

import (
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/config"
	"github.com/skill-inject/ski/internal/ledger"
	"github.com/skill-inject/ski/internal/listing"
	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/skilltool"
)

// Name is the command's name.
const Name = "ski-ledger"

const name = Name

// subcommands in the order the manual lists them, with their section.
var subcommands = []struct {
	name, section string
	run           func(env cli.Env, fs *flag.FlagSet, common *common) error
}{
	{"record", "Record", runRecord},
	{"observe", "Observe", runObserve},
	{"rearm", "Rearm", runRearm},
	{"listing", "Listing", runListing},
	{"show", "Show", runShow},
	{"stats", "Stats", runStats},
	{"gc", "GC", runGC},
}

func subcommandNames() string {
	var names []string
	for _, s := range subcommands {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}

// Run runs ski-ledger with env; docSource is its doc.go, the manual.
func Run(env cli.Env, docSource string) error {
	fs := cli.NewFlags(name, cli.Manual(docSource), env)
	stateDir := fs.String("state-dir", "", "keep ledgers in `DIR`/sessions (default $XDG_STATE_HOME/ski)")
	if err := cli.Parse(fs, env); err != nil {
		return err
	}
	args := fs.Args()
	if len(args) == 0 {
		return cli.Usagef("missing subcommand (want %s)", subcommandNames())
	}
	for _, sub := range subcommands {
		if sub.name != args[0] {
			continue
		}
		env.Args = args[1:]
		sfs := cli.NewFlags(name+" "+sub.name, "Usage:\n\n"+section(docSource, sub.section), env)
		c := &common{env: env}
		sfs.StringVar(&c.stateDir, "state-dir", *stateDir, "keep ledgers in `DIR`/sessions (default $XDG_STATE_HOME/ski)")
		return sub.run(env, sfs, c)
	}
	return cli.Usagef("unknown subcommand %q (want %s)", args[0], subcommandNames())
}

// common holds what every subcommand shares.
type common struct {
	env      cli.Env
	stateDir string
}

func (c *common) store() *ledger.Store {
	dir := ledger.Dir(c.env.Environ.Dirs.State)
	if c.stateDir != "" {
		dir = ledger.Dir(c.stateDir)
	}
	return &ledger.Store{Dir: dir, Warn: c.warn}
}

func (c *common) warn(msg string) { cli.Warner(name, c.env.Stderr)(msg) }

func (c *common) logf(format string, args ...any) {
	fmt.Fprintf(c.env.Stderr, "%s: %s\n", name, fmt.Sprintf(format, args...))
}

// parse parses a subcommand's flags; subcommands take no arguments.
func parse(fs *flag.FlagSet, env cli.Env) error {
	if err := cli.Parse(fs, env); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("%s: unexpected argument %q", strings.TrimPrefix(fs.Name(), name+" "), fs.Arg(0))
	}
	return nil
}

func input(env cli.Env, maxLine int) ledger.Input {
	return ledger.Input{R: env.Stdin, Name: "<stdin>", MaxLine: maxLine}
}

func runRecord(env cli.Env, fs *flag.FlagSet, c *common) error {
	maxLine := fs.Int("max-line", ndjson.DefaultMaxLine, "fail on an input line longer than `N` bytes")
	if err := parse(fs, env); err != nil {
		return err
	}
	_, err := ledger.Record(c.store(), input(env, *maxLine), env.Stdout)
	return err
}

func runObserve(env cli.Env, fs *flag.FlagSet, c *common) error {
	host := fs.String("host", "", "the host the payloads come from: `claude|opencode`")
	verbose := fs.Bool("verbose", false, "print a summary line on stderr")
	reply := fs.Bool("reply", false, "print the host's payload that answers a repeated skill_load with a short note")
	maxLine := fs.Int("max-line", ndjson.DefaultMaxLine, "fail on an input line longer than `N` bytes")
	if err := parse(fs, env); err != nil {
		return err
	}
	if err := checkHost("observe", *host); err != nil {
		return err
	}
	o := ledger.ObserveOptions{Host: *host, Catalog: catalog(env, *host, c.warn)}
	var repeats []string
	if *reply {
		o.Repeat = func(_ ledger.Observation, sk record.Skill) { repeats = append(repeats, sk.Invoke) }
	}
	marks, err := ledger.Observe(c.store(), input(env, *maxLine), o)
	if err != nil {
		return err
	}
	for _, name := range repeats {
		if err := writeRepeat(env, *host, name); err != nil {
			return err
		}
	}
	if *verbose {
		c.logf("observe: %s", summary(marks, "loaded by the model"))
	}
	return nil
}

// checkHost checks a subcommand's --host.
func checkHost(sub, host string) error {
	switch host {
	case record.HostClaude, record.HostOpencode:
		return nil
	case "":
		return cli.Usagef("%s: --host is required (%s or %s)", sub, record.HostClaude, record.HostOpencode)
	}
	return cli.Usagef("%s: unknown --host %q (want %s or %s)", sub, host, record.HostClaude, record.HostOpencode)
}

// workDir is a payload's cwd made absolute; "" is the current directory.
func workDir(cwd string) (string, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		cwd = wd
	}
	return filepath.Abs(cwd)
}

// writeRepeat prints the payload that makes the host give the model a
// short note instead of the body of a skill it loaded before: Claude
// Code's PostToolUse updatedMCPToolOutput, or for the opencode plugin
// {"output": NOTE}.
func writeRepeat(env cli.Env, host, name string) error {
	note := skilltool.AlreadyLoaded(name)
	var payload any = map[string]string{"output": note}
	if host == record.HostClaude {
		payload = map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PostToolUse",
			"updatedMCPToolOutput": []map[string]string{{"type": "text", "text": note}}}}
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
	return err
}

// catalog lists the skills ski-scan finds for host in a directory, with
// the same options ski-scan takes from the environment and the config.
func catalog(env cli.Env, host string, warn func(string)) func(cwd string) ([]record.Skill, error) {
	return func(cwd string) ([]record.Skill, error) {
		cwd, err := workDir(cwd)
		if err != nil {
			return nil, err
		}
		res, err := scan.Scan(scan.ForDir(env.Environ, config.Load(env.Environ.Dirs.Config, cwd, warn), host, cwd, warn))
		if err != nil {
			return nil, err
		}
		return res.Skills, nil
	}
}

func summary(marks []ledger.Mark, what string) string {
	if len(marks) == 0 {
		return "nothing to record"
	}
	var ids []string
	for _, m := range marks {
		ids = append(ids, m.ID)
	}
	return fmt.Sprintf("%d %s: %s", len(marks), what, strings.Join(ids, ", "))
}

func runRearm(env cli.Env, fs *flag.FlagSet, c *common) error {
	session := fs.String("session", "", "rearm session `ID` directly instead of reading payloads on stdin")
	verbose := fs.Bool("verbose", false, "print a summary line on stderr")
	maxLine := fs.Int("max-line", ndjson.DefaultMaxLine, "fail on an input line longer than `N` bytes")
	if err := parse(fs, env); err != nil {
		return err
	}
	st := c.store()
	if *session != "" {
		if err := st.Apply([]ledger.Mark{{Session: *session, Event: ledger.EventRearm}}); err != nil {
			return err
		}
		if *verbose {
			c.logf("rearm: rearmed session %q", *session)
		}
		return nil
	}
	marks, err := ledger.RearmPayloads(st, input(env, *maxLine))
	if err != nil {
		return err
	}
	if *verbose {
		var sessions []string
		for _, m := range marks {
			sessions = append(sessions, fmt.Sprintf("%q", m.Session))
		}
		if len(sessions) == 0 {
			c.logf("rearm: nothing to rearm")
		} else {
			c.logf("rearm: rearmed %s", strings.Join(sessions, ", "))
		}
	}
	return nil
}

func runListing(env cli.Env, fs *flag.FlagSet, c *common) error {
	host := fs.String("host", "", "the host the payloads come from: `claude|opencode`")
	verbose := fs.Bool("verbose", false, "print a summary line on stderr")
	maxLine := fs.Int("max-line", ndjson.DefaultMaxLine, "fail on an input line longer than `N` bytes")
	if err := parse(fs, env); err != nil {
		return err
	}
	if err := checkHost("listing", *host); err != nil {
		return err
	}
	work := func(cwd, model string) (*ledger.Listing, error) {
		if len(env.Environ.Roots) > 0 {
			return nil, nil // SKI_ROOTS: how the host lists those skills is not known
		}
		dir, err := workDir(cwd)
		if err != nil {
			return nil, err
		}
		l, err := listing.For(env.Environ, config.Load(env.Environ.Dirs.Config, dir, c.warn), *host, dir, model, time.Now(), c.warn)
		if err != nil {
			return nil, err
		}
		x := &ledger.Listing{Model: l.Model, Budget: l.Budget, States: map[string]string{}}
		for _, s := range l.Skills {
			if s.ID != "" && s.State != listing.Full && s.State != "" {
				x.States[s.ID] = s.State
			}
		}
		return x, nil
	}
	marks, err := ledger.ListingPayloads(c.store(), input(env, *maxLine), work)
	if err != nil {
		return err
	}
	if *verbose {
		for _, m := range marks {
			c.logf("listing: session %q: budget %d (%s): %d skills not shown whole", m.Session, m.Listing.Budget, m.Listing.Model, len(m.Listing.States))
		}
	}
	return nil
}

func runShow(env cli.Env, fs *flag.FlagSet, c *common) error {
	session := fs.String("session", "", "print the ledger of session `ID`")
	if err := parse(fs, env); err != nil {
		return err
	}
	st := c.store()
	if *session != "" {
		path, err := st.Path(*session)
		if err != nil {
			return err
		}
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("no ledger for session %q in %s", *session, st.Dir)
		}
		l, err := st.Load(*session)
		if err != nil {
			return err
		}
		return ledger.Encode(env.Stdout, l)
	}
	ledgers, err := st.List()
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, l := range ledgers {
		id := l.SessionID()
		if strings.ContainsFunc(id, unicode.IsControl) {
			id = strconv.Quote(id) // keep one ledger per line
		}
		fmt.Fprintf(&b, "%s\t%d\t%s\n", id, len(l.LoadedIDs()), l.Updated().UTC().Format(time.RFC3339))
	}
	_, err = fmt.Fprint(env.Stdout, b.String())
	return err
}

func runStats(env cli.Env, fs *flag.FlagSet, c *common) error {
	table := fs.Bool("table", false, "print an aligned table for people instead of records")
	if err := parse(fs, env); err != nil {
		return err
	}
	ledgers, err := c.store().List()
	if err != nil {
		return err
	}
	stats := ledger.Stats(ledgers)
	if *table {
		tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(ledger.StatsColumns, "\t"))
		for _, s := range stats {
			fmt.Fprintln(tw, strings.Join(s.Row(""), "\t"))
		}
		return tw.Flush()
	}
	w := ndjson.NewWriter(env.Stdout)
	for _, s := range stats {
		if err := w.Encode(s); err != nil {
			return err
		}
	}
	return w.Flush()
}

func runGC(env cli.Env, fs *flag.FlagSet, c *common) error {
	olderThan := fs.Duration("older-than", 720*time.Hour, "remove ledgers not updated for `AGE`")
	verbose := fs.Bool("verbose", false, "print what was removed on stderr")
	if err := parse(fs, env); err != nil {
		return err
	}
	if *olderThan < 0 {
		return cli.Usagef("gc: --older-than %v is negative", *olderThan)
	}
	res, err := c.store().GC(*olderThan)
	if *verbose {
		c.logf("gc: removed %d ledgers, %d lock files, %d temporary files", res.Ledgers, res.Locks, res.Temps)
	}
	return err
}

// section is a subcommand's --help text: its "# Heading" section of the
// manual and the exit status.
func section(docSource, heading string) string {
	return cli.Section(docSource, heading) + "\n\nExit status:\n\n" + cli.Section(docSource, "Exit status") + "\n"
}

package main

import (
	_ "embed"
	"os"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/gate"
	"github.com/skill-inject/ski/internal/ledger"
	"github.com/skill-inject/ski/internal/settings"
)

// docSource is doc.go, the manual.
//
//go:embed doc.go
var docSource string

func main() { os.Exit(cli.Main("ski-select", cli.OSEnv(), run)) }

func run(env cli.Env) error {
	fs := cli.NewFlags("ski-select", cli.Manual(docSource), env)
	all := fs.Bool("all", false, "also write dropped candidates, with the reason")
	stateDir := fs.String("state-dir", "", "ski state `dir`; ledgers are in its sessions/ (default $XDG_STATE_HOME/ski)")
	noLedger := fs.Bool("no-ledger", false, "ignore the session ledger (no dedup)")
	table := fs.Bool("table", false, "write an aligned table for people instead of records")
	maxLine := fs.Int("max-line", 1<<20, "longest input line in `bytes`")
	if err := cli.ParseNoArgs(fs, env); err != nil {
		return err
	}
	warn := cli.Warner("ski-select", env.Stderr)
	dirs := env.Environ.Dirs
	res := &settings.Resolver{Env: env.Environ, Warn: warn}
	o := gate.Options{Settings: res.Gate, All: *all, Table: *table, MaxLine: *maxLine}
	if !*noLedger {
		state := *stateDir
		if state == "" {
			state = dirs.State
		}
		o.Sessions = sessions{&ledger.Store{Dir: ledger.Dir(state), Warn: warn}}
	}
	return gate.Run(o, env.Stdin, env.Stdout)
}

// sessions answers the gate's questions from the ledger files.
type sessions struct{ store *ledger.Store }

func (s sessions) Lookup(session string) (gate.Seen, error) {
	l, err := s.store.Load(session)
	if err != nil {
		return nil, err
	}
	return seen{l}, nil
}

type seen struct{ l *ledger.Ledger }

func (s seen) Loaded(id string) (string, bool) {
	e, ok := s.l.Loaded(id)
	return string(e.Source), ok
}

func (s seen) Suggested(id string) bool { return s.l.Suggested(id) }

func (s seen) Shown(id string) string { return s.l.Shown(id) }

package main

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/hostrules"
	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/scan"
	"github.com/skill-inject/ski/internal/settings"
	"github.com/skill-inject/ski/internal/skill"
)

const name = "ski-scan"

//go:embed doc.go
var docSource string

func main() { os.Exit(cli.Main(name, cli.OSEnv(), run)) }

func run(env cli.Env) error {
	fs := cli.NewFlags(name, cli.Manual(docSource), env)
	host := fs.String("host", record.HostClaude, "whose discovery rules to follow: claude or opencode")
	cwd := fs.String("cwd", "", "the project directory the host runs in (default: the current directory)")
	var roots cli.StringList
	fs.Var(&roots, "root", "search only this directory (repeatable; overrides SKI_ROOTS)")
	maxDepth := fs.Int("max-depth", scan.DefaultMaxDepth, "folder levels searched below a root")
	maxSize := fs.Int64("max-size", skill.DefaultMaxSize, "largest SKILL.md read, in bytes")
	if err := cli.ParseNoArgs(fs, env); err != nil {
		return err
	}
	if *host != record.HostClaude && *host != record.HostOpencode {
		return cli.Usagef("--host %q: want %s or %s", *host, record.HostClaude, record.HostOpencode)
	}
	if *maxDepth < 0 {
		return cli.Usagef("--max-depth %d: must not be negative", *maxDepth)
	}
	if *maxSize <= 0 {
		return cli.Usagef("--max-size %d: must be positive", *maxSize)
	}

	dir, err := workDir(*cwd)
	if err != nil {
		return err
	}
	warn := cli.Warner(name, env.Stderr)
	resolver := &settings.Resolver{Env: env.Environ, Warn: warn}

	// --root and SKI_ROOTS are relative to where ski-scan runs, not --cwd.
	for i, r := range roots {
		if roots[i], err = filepath.Abs(r); err != nil {
			return fmt.Errorf("--root %q: %w", r, err)
		}
	}
	o := scan.ForDir(env.Environ, resolver.Config(dir), *host, dir, warn)
	o.MaxDepth, o.MaxSize = *maxDepth, *maxSize
	if *maxDepth == 0 {
		// 0 means "only SKILL.md directly in a root"; scan.Options uses 0
		// for the default, so ask for the root level explicitly.
		o.MaxDepth = -1
	}
	if len(roots) > 0 {
		o.Roots = roots
	}

	w := ndjson.NewWriter(env.Stdout)
	res, err := scan.Run(o, w)
	if err != nil {
		return err
	}
	for _, warning := range hostrules.CheckAll(*host, res.Skills) {
		if err := w.Encode(warning); err != nil {
			return err
		}
	}
	return w.Flush()
}

// workDir returns --cwd made absolute, or the current directory.
func workDir(flagValue string) (string, error) {
	if flagValue == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		return wd, nil
	}
	dir, err := filepath.Abs(flagValue)
	if err != nil {
		return "", fmt.Errorf("--cwd %q: %w", flagValue, err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("--cwd %s: no such directory", dir)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("--cwd %s: not a directory", dir)
	}
	return dir, nil
}

package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/fetch"
)

// fetchModel downloads the files of model id (default: the default model)
// from a Hugging Face endpoint into ski's model directory.
func fetchModel(env cli.Env, id string) error {
	if id == "" {
		id = embed.DefaultModel()
	}
	m, err := embed.Lookup(id)
	if err != nil {
		return cli.Usagef("--fetch: %v", err)
	}
	if len(m.Files) == 0 {
		return cli.Usagef("--fetch: model %s has no files to download", id)
	}
	dir := filepath.Join(env.Environ.Dirs.Data, "models", m.ID)
	files := make([]fetch.File, len(m.Files))
	for i, f := range m.Files {
		files[i] = fetch.File{Path: f.HFPath, SHA256: f.SHA256, Size: f.Size, Save: f.Name}
	}
	src := fetch.Source{Repo: m.HFRepo, Revision: m.HFRevision}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := fetch.Options{
		Progress: env.Stderr, TTY: cli.IsTerminal(env.Stderr),
		Endpoint: env.Environ.HFEndpoint, Token: env.Environ.HFToken,
	}
	if err := fetch.Files(ctx, src, dir, files, opts); err != nil {
		return fmt.Errorf("fetch %s: %w", m.ID, err)
	}
	source := fmt.Sprintf("model %s\nfrom %s (%s@%s)\n", m.ID, fetch.URL(fetch.Source{Endpoint: opts.Endpoint, Repo: src.Repo, Revision: src.Revision}, ""), src.Repo, src.Revision)
	if err := os.WriteFile(filepath.Join(dir, "SOURCE"), []byte(source), 0o644); err != nil {
		return fmt.Errorf("fetch %s: %w", m.ID, err)
	}
	fmt.Fprintf(env.Stderr, "ski-embed: %s is in %s\n", m.ID, dir)
	return nil
}

// Package mcpcmd is the ski-mcp command: a Model Context Protocol server
// over stdio (github.com/modelcontextprotocol/go-sdk) with two tools for
// the model, skill_search and skill_load (package skillfind does the
// work); its manual is cmd/ski-mcp's doc.go.
package mcpcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skill-inject/ski/internal/cli"
	"github.com/skill-inject/ski/internal/cut"
	"github.com/skill-inject/ski/internal/install"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/settings"
	"github.com/skill-inject/ski/internal/skillfind"
	"github.com/skill-inject/ski/internal/skilltool"
)

// Name is the command's name.
const Name = "ski-mcp"

// Options are ski-mcp's flags.
type Options struct {
	Host   string // whose skills: claude or opencode
	Plugin bool   // run as the Claude Code plugin's server
}

// Run runs ski-mcp with env until its client hangs up.
func Run(env cli.Env, manual string) error {
	fs := cli.NewFlags(Name, manual, env)
	var o Options
	fs.StringVar(&o.Host, "host", record.HostClaude, "the host whose skills are searched: claude or opencode")
	fs.BoolVar(&o.Plugin, "plugin", false, "run as the Claude Code plugin's server: no tools while scripts/install.sh registered ski's own")
	if err := cli.ParseNoArgs(fs, env); err != nil {
		return err
	}
	if o.Host != record.HostClaude && o.Host != record.HostOpencode {
		return cli.Usagef("--host %q: want %s or %s", o.Host, record.HostClaude, record.HostOpencode)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("current directory: %w", err)
	}
	out := &lockedWriter{w: env.Stdout}
	err = NewServer(env, o, cwd).Run(context.Background(), &mcp.IOTransport{Reader: checkedLines(env.Stdin, out), Writer: out})
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return nil // the client hung up
	}
	return err
}

// NewServer is ski-mcp's MCP server for the project in cwd. As the
// plugin's server it offers no tools while ski-install registered ski's
// own server for Claude Code (the two would give the model each tool
// twice, under two names).
func NewServer(env cli.Env, o Options, cwd string) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: skilltool.ServerName, Version: cli.Version()},
		&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	if o.Plugin {
		if _, err := os.Stat(install.HooksMarker(env.Environ.Dirs.Data)); err == nil {
			return server
		}
	}
	t := &tools{env: env, host: o.Host, cwd: cwd, warn: cli.Warner(Name, env.Stderr)}
	mcp.AddTool(server, &mcp.Tool{Name: skilltool.Search, Description: skilltool.SearchDescription}, t.search)
	mcp.AddTool(server, &mcp.Tool{Name: skilltool.Load, Description: skilltool.LoadDescription}, t.load)
	return server
}

// tools answers the tool calls, one at a time (the finder keeps what it
// started, and each call reads the config afresh).
type tools struct {
	env  cli.Env
	host string
	cwd  string
	warn func(string)

	mu     sync.Mutex
	finder *skillfind.Finder
}

// finderNow is the finder with the config as it is now.
func (t *tools) finderNow() *skillfind.Finder {
	if t.finder == nil {
		t.finder = &skillfind.Finder{Env: t.env.Environ, Host: t.host, Cwd: t.cwd, Warn: t.warn}
	}
	t.finder.Hidden = skillfind.HostHidden(t.env.Environ, t.host, t.cwd)
	t.finder.Res = &settings.Resolver{Env: t.env.Environ, Warn: t.warn}
	return t.finder
}

func (t *tools) search(ctx context.Context, _ *mcp.CallToolRequest, in skilltool.SearchArgs) (*mcp.CallToolResult, any, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	res, err := t.finderNow().Search(in.Query, in.Limit)
	if err != nil {
		return failed(fmt.Sprintf("ski: the search failed: %v", err)), nil, nil
	}
	return text(skilltool.FormatHits(cut.Short(in.Query, 200), res.Hits, res.Note)), nil, nil
}

func (t *tools) load(ctx context.Context, _ *mcp.CallToolRequest, in skilltool.LoadArgs) (*mcp.CallToolResult, any, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	_, body, err := t.finderNow().Load(in.Name)
	var nl *skillfind.NotLoaded
	switch {
	case errors.As(err, &nl):
		return failed("ski: " + nl.Error() + "."), nil, nil
	case err != nil:
		return failed(fmt.Sprintf("ski: the skill could not be loaded: %v", err)), nil, nil
	}
	return text(body), nil, nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func failed(s string) *mcp.CallToolResult {
	r := text(s)
	r.IsError = true
	return r
}

package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/skill-inject/ski/internal/skilltool"
)

// mcpKey is where ski's server sits in Claude Code's global state file.
var mcpKey = "mcpServers." + skilltool.ServerName

// ClaudeMCP adds (install) or removes (uninstall) ski's MCP server,
// running command, in Claude Code's user-scope mcpServers of the global
// state file at path (~/.claude.json), changing nothing else of the file.
// An entry of that name whose command is not a ski-mcp is not ski's and is
// left alone (install fails, saying so). It reports whether the file
// changed; installing twice changes nothing.
func ClaudeMCP(path, command string, install bool) (bool, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	data := old
	if len(bytes.TrimSpace(data)) == 0 {
		if !install {
			return false, nil
		}
		data = []byte("{}")
	}
	if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
		return false, fmt.Errorf("%s is not a JSON object; fix or move it, then run again", path)
	}
	cur := gjson.GetBytes(data, mcpKey)
	ours := cur.Exists() && filepath.Base(cur.Get("command").Str) == "ski-mcp"
	if cur.Exists() && !ours {
		if install {
			return false, fmt.Errorf("%s already has an MCP server named %q that is not ski's; rename it to let ski register its own", path, skilltool.ServerName)
		}
		return false, nil
	}
	switch {
	case install && ours && cur.Get("command").Str == command:
		return false, nil
	case install:
		entry := map[string]any{"type": "stdio", "command": command, "args": []string{}, "env": map[string]string{}}
		data, err = sjson.SetBytes(data, mcpKey, entry)
	case !ours:
		return false, nil
	default:
		data, err = sjson.DeleteBytes(data, mcpKey)
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, writeAtomic(path, data)
}

// ClaudeMCPCommand is the command of ski's server in the global state
// file at path, or "" when none is registered.
func ClaudeMCPCommand(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	c := gjson.GetBytes(data, mcpKey+".command").Str
	if filepath.Base(c) != "ski-mcp" {
		return ""
	}
	return c
}

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
// left alone (install fails, saying so). It reports what it did to the
// file; installing twice changes nothing. A file install created (noted
// in rec) is removed again by uninstall when ski's entry was all it held.
func ClaudeMCP(path, command string, install bool, rec *Record) (Change, error) {
	old, err := os.ReadFile(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return Unchanged, fmt.Errorf("read %s: %w", path, err)
	}
	if len(bytes.TrimSpace(old)) == 0 && !install {
		return Unchanged, nil
	}
	data, err := jsonObject(path, old)
	if err != nil {
		return Unchanged, err
	}
	cur := gjson.GetBytes(data, mcpKey)
	ours := cur.Exists() && filepath.Base(cur.Get("command").Str) == "ski-mcp"
	if cur.Exists() && !ours {
		if install {
			return Unchanged, fmt.Errorf("%s already has an MCP server named %q that is not ski's; rename it to let ski register its own", path, skilltool.ServerName)
		}
		return Unchanged, nil
	}
	switch {
	case install && ours && cur.Get("command").Str == command:
		return Unchanged, nil
	case install:
		entry := map[string]any{"type": "stdio", "command": command, "args": []string{}, "env": map[string]string{}}
		if data, err = sjson.SetBytes(data, mcpKey, entry); err != nil {
			return Unchanged, fmt.Errorf("%s: %w", path, err)
		}
		if missing {
			rec.AddCreated(path)
		}
		return Changed, writeAtomic(path, data)
	case !ours:
		return Unchanged, nil
	}
	if data, err = sjson.DeleteBytes(data, mcpKey); err == nil {
		if s := gjson.GetBytes(data, "mcpServers"); s.IsObject() && len(s.Map()) == 0 {
			data, err = sjson.DeleteBytes(data, "mcpServers")
		}
	}
	if err != nil {
		return Unchanged, fmt.Errorf("%s: %w", path, err)
	}
	created := rec.Has(MadeFile, path)
	rec.Drop(MadeFile, path)
	if created && emptyObject(data) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Unchanged, fmt.Errorf("remove %s: %w", path, err)
		}
		return Removed, nil
	}
	return Changed, writeAtomic(path, data)
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

/*
Ski-install wires ski's hook scripts into the hosts, or takes them out.

# Usage

	ski-install [--host claude|opencode|all] [--scripts DIR] [--uninstall]

Claude Code: adds ski's UserPromptSubmit, PostToolUse (matcher Read, Skill
and ski's two MCP tools under both their names) and SessionStart (matcher startup|resume|compact) hooks to
~/.claude/settings.json ($CLAUDE_CONFIG_DIR/settings.json when set),
keeping every other key and hook, and backs the file up beside itself as
settings.json.ski-backup-UNIXTIME before changing it (a missing file is
created). Running it again changes nothing; --uninstall removes only ski's
entries, makes no backup, and puts back what was there: a settings file
ski created that holds nothing else is removed, one left as it was before
ski first changed it gets its bytes back from the backup, and ski's
backups are removed. What it created and backed up is noted in
$XDG_DATA_HOME/ski/installed. When ski's Claude
Code plugin is enabled in that file, its hooks run ski, so ski-install
adds none (and takes out any it added before). Otherwise it leaves
$XDG_DATA_HOME/ski/claude-hooks-installed, and the plugin's copy of the
hooks, should the plugin be enabled later, stands down: each hook runs
once either way. On the same terms it registers ski-mcp (beside
ski-install) as the user-scope MCP server "ski" in ~/.claude.json
($CLAUDE_CONFIG_DIR/.claude.json when set), changing nothing else there;
the plugin's own server offers no tools while that entry's marker is
there. --uninstall removes the entry when it is ski's.

opencode: writes the plugin $XDG_CONFIG_HOME/opencode/plugin/ski.js, which
runs hook-opencode.sh on chat.message (adding its note as a synthetic part
the model sees), tool.execute.after (skill, read) and the
session.created/session.compacted events. It fails open. --uninstall
removes it (never a file ski did not write).

--scripts is the directory holding hook-claude.sh and hook-opencode.sh
(default: $XDG_DATA_HOME/ski/scripts, where scripts/install.sh copies them).
Use scripts/install.sh for the whole installation (binaries, runtime, model,
index, hosts); this command does only the host wiring.

# Output

	one line per file on stderr saying what changed.

# Exit status

	0 done (also when nothing needed changing), 1 error (e.g. a settings file
	that is not JSON), 2 usage.

# Examples

	ski-install --host all
	ski-install --uninstall
*/
package main

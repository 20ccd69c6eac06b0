/*
Ski-mcp is a Model Context Protocol server over stdio that lets the model
search ski's index of the installed skills and load one.

# Usage

	ski-mcp [--host claude|opencode] [--plugin]

The host starts it and speaks newline-delimited JSON-RPC 2.0 with it on
standard input and output until it hangs up. Two tools:

  - skill_search {query, limit?}: the skills of the project (the working
    directory) and the host that fit the query, best first, ranked as the
    prompt hook ranks a prompt (ski's index, model and judge). Each comes
    with its name, description, band (inject: a strong match; suggest: may
    help; weak) and why. Skills the model may not invoke are left out:
    disable-model-invocation, the config's deny, and those Claude Code's
    skillOverrides turn off. The model runs in the embed server: ski-mcp
    never loads it. With no server it starts one (as session start does)
    and ranks with the project's lexical index meanwhile.
  - skill_load {name}: the SKILL.md body (cut to char_budget), the
    skill's base directory and its bundled files (relative to it; links
    that leave it are not listed). The name is a skill's id, or the name
    the host invokes it by, or its name; one that names several skills
    gets their ids, an unknown one the nearest names. A skill with
    disable-model-invocation is refused.

A second skill_load of a skill in a session is answered by the host's
observe hook with a short note instead of the body (ski-ledger observe).

--plugin marks the Claude Code plugin's server (the plugin's .mcp.json
starts it so): it offers no tools while scripts/install.sh registered
ski's own server, so the model gets each tool once.

# Output

	JSON-RPC responses on standard output; messages on standard error.

# Exit status

	0 when the client hangs up, 1 error, 2 usage.

# Examples

	claude mcp add ski -- ski-mcp
	printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}' | ski-mcp
*/
package main

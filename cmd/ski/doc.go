/*
ski makes AI coding agents use the right skill at the right time. This is
its front command: it runs the stages installed beside it, and answers
what a person asks when ski stays silent or misbehaves.

# Usage

	ski doctor              check the install, one line per check with the fix
	ski status              skills, index, build progress, embed server, last session
	ski why "PROMPT"        what ski would do with a prompt, and why (--json)
	ski search "QUERY"      the skills that fit a task, as skill_search ranks them (--json)
	ski stats               per-skill injected / followed / suggested, with advice
	ski history             the last decisions across sessions
	ski version             the version (every command also takes --version)
	ski STAGE [ARGS]        run the stage ski-STAGE installed beside ski:
	                        scan, embed, rank, select, ledger, render, install, eval

doctor, status, why, search and stats look at the current directory's project
and take --host claude|opencode (default claude) and --cwd DIR. Each
command has --help.

# Exit status

	0 ok, 1 error (ski doctor: a check failed), 2 usage.
*/
package main

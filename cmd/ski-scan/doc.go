/*
Ski-scan finds the skills an AI coding agent would see and writes one NDJSON
record per SKILL.md: a skill record for each skill the host would load, an
error record for each one it would not.

It is the first stage of the ski pipeline; its output feeds ski-embed and
ski-rank. It only reads files: nothing in a skill is ever run.

# Usage

	ski-scan [--host claude|opencode] [--cwd DIR] [--root DIR]... [--max-depth N] [--max-size BYTES]

# Where it looks

Without --root or SKI_ROOTS, ski-scan searches the folders the host itself
reads, from the project directory (--cwd) up to the repository root (the
nearest folder holding .git; outside a repository, only --cwd):

	claude     ~/.claude/skills (or $CLAUDE_CONFIG_DIR/skills)        user
	           .claude/skills in --cwd and each parent up to the root  project
	           skills/ of each Claude Code plugin that is enabled in
	           settings.json (enabledPlugins) and installed
	           (plugins/installed_plugins.json)                        plugin
	opencode   .opencode/skill(s), .agents/skills, .claude/skills in
	           --cwd and each parent up to the root                    project
	           $XDG_CONFIG_HOME/opencode/skill(s), ~/.opencode/skill(s),
	           $OPENCODE_CONFIG_DIR/skill(s), ~/.agents/skills,
	           ~/.claude/skills                                        user
	           skills.paths of opencode.json(c); a relative entry is
	           resolved against --cwd, as opencode does       project or user

Each --root replaces those (its skills get scope "user"); extra_roots from
ski's config.toml or the project's .ski.toml are added to either (scope
"extra"). Below each root, SKILL.md files are found down to --max-depth
folders deep. Hidden folders and node_modules are skipped; symlinked
folders are followed, each real folder once. Nested .claude/skills folders
below --cwd are not searched.

A skill's id is the path of its folder relative to its root ("k8s/helm-chart";
a SKILL.md directly in a root takes the root's name) for --root and SKI_ROOTS
roots and the user's own skills, and that path qualified by where the skill
comes from for the others ("project:k8s/helm-chart", "plugin:tools/fmt",
"extra:k8s/helm-chart"), so skills of different sources never share an id. A
folder that another root of the same scan also has gets "@" and 8 hex digits
of the SHA-256 of that root's path. The walk never follows a symlink to / or
into a system tree (/proc, /sys, /usr, ...) and stops after 50000 entries
below a root; both are reported as error records.

# Output records

One JSON object per line: every skill record, then every error record, each
group sorted by scope precedence and then id, then a warning record for
each frontmatter rule of the host (--host) that a usable skill breaks: a
name over 64 characters or with characters other than lowercase letters,
digits and hyphens, a description over 1024 characters or with angle
brackets; for claude a name with "claude" or "anthropic"; for opencode a
name that is not the skill's folder name. The host may refuse or cut such
a skill; ski ranks it as usual.

	{"kind":"skill","id":"k8s/helm-chart","name":"helm-chart","description":"...",
	 "invoke":"helm-chart","path":"/abs/SKILL.md","dir":"/abs","root":"/root",
	 "scope":"project","host":"claude","keywords":["helm"],"aliases":[],"tags":[],
	 "affinity":[],"disable_model_invocation":false,"user_invocable":true,
	 "auto_inject":true,"hash":"sha256:...","mtime":"2026-01-02T03:04:05Z",
	 "size":812,"shadows":["/other/SKILL.md"]}
	{"kind":"error","path":"/abs/SKILL.md","root":"/root","id":"x","reason":"no description"}
	{"kind":"warning","path":"/abs/SKILL.md","id":"y","host":"claude","reason":"description is 1100 characters; ..."}

invoke is the name the host invokes the skill by: "plugin:name" for plugin
skills, the name otherwise. shadows appears only when other skills have the
same invoke name: the host loads one, so ski-scan keeps one and writes an
error record for each other. For claude the user scope wins over project
(as Claude Code documents); for opencode project wins over user. In one
scope the earlier root, then the smaller id, wins.

Error reasons include: no frontmatter, frontmatter is not closed, malformed
frontmatter (with the line), no description, empty description, invalid
name, binary file, invalid UTF-8 (with the line), file is over the size
limit, SKILL.md is a directory, broken symlink, unreadable, shadowed by
another skill.

# Flags

	--host claude|opencode   whose discovery rules to follow (default claude)
	--cwd DIR                the project directory (default: the current one)
	--root DIR               search only DIR; repeatable; overrides SKI_ROOTS;
	                         a relative DIR is taken from where ski-scan runs
	--max-depth N            folder levels searched below a root (default 6)
	--max-size BYTES         larger SKILL.md files become error records (default 262144)

# Environment

	SKI_ROOTS          colon-separated roots, used when no --root is given
	HOME               the home directory
	XDG_CONFIG_HOME    where opencode's and ski's config live (default ~/.config)
	CLAUDE_CONFIG_DIR  Claude Code's config folder (default ~/.claude)
	OPENCODE_CONFIG_DIR  an extra opencode config folder

# Exit status

	0  the scan ran, even if it found nothing or wrote error records
	1  a --root does not exist, --cwd is not a directory, or output failed
	2  bad flags or arguments

# Examples

List the names of the skills Claude Code would see here:

	ski-scan | jq -r 'select(.kind=="skill") | .invoke'

Check a folder of skills before publishing it:

	ski-scan --root ./skills | jq -c 'select(.kind=="error")'

Feed the pipeline for opencode:

	ski-scan --host opencode --cwd "$PWD" | ski-embed
*/
package main

#!/usr/bin/env bash
# host-tools.sh — the real host CLIs the end-to-end host tests drive: Claude
# Code and opencode from npm at pinned versions, @opencode-ai/plugin at
# opencode's version (opencode installs it into every config directory on
# start; the tests copy this one in so runs stay fast and offline), and
# ripgrep, which opencode's skill tool needs (from crates.io, built with
# cargo). Test tooling only; ski never runs it. Needs npm and cargo, never
# root: installs into $SKI_SETUP_CACHE/hosts (default
# ~/.cache/ski-setup/hosts) only, never into the repository or the system.
# Idempotent: a second
# run only checks; with --no-install it never installs and fails when
# something is missing. Prints, one per line, shell assignments of
#   SKI_CLAUDE            the claude executable
#   SKI_OPENCODE          the opencode executable
#   SKI_OPENCODE_PLUGIN   a directory holding package.json, package-lock.json
#                         and node_modules/@opencode-ai/plugin: copied into
#                         opencode's config directory, opencode needs no
#                         registry at start
#   SKI_RG                the rg executable
set -euo pipefail
install=1
case ${1:-} in
--no-install) install=0 ;;
'') ;;
*) echo "host-tools: unknown argument $1 (want --no-install or nothing)" >&2; exit 2 ;;
esac
claude_version=2.1.197
opencode_version=1.18.33
setup_cache=${SKI_SETUP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ski-setup}
cache=$setup_cache/hosts
. "$(dirname -- "${BASH_SOURCE[0]}")/tool-caches.sh" "$setup_cache"
say() { echo "host-tools: $*" >&2; }
# The CLIs are asked their version in a home of their own: they write
# their folders into the one they find.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# --prefix would also move npm's global config (a system npmrc with the
# machine's CA or registry mirror) to DIR/etc/npmrc: npm install is told
# the user's.
npm_global=()
if g=$(npm config get globalconfig 2>/dev/null) && [ -n "$g" ]; then npm_global=(--globalconfig "$g"); fi

# npm_pin DIR SPEC...: installs the packages into DIR unless the same pins
# are there already.
npm_pin() {
	local dir=$1
	shift
	if [ "$(cat "$dir/.pins" 2>/dev/null)" = "$*" ]; then
		return 0
	fi
	[ $install = 1 ] || { say "$* is not installed in $dir"; return 1; }
	say "installing $* into $dir"
	rm -rf "$dir"
	mkdir -p "$dir"
	# The optional dependencies carry the native binaries; the install scripts
	# only copy them into place, and we use them where npm put them.
	npm install --prefix "$dir" "${npm_global[@]}" --no-audit --no-fund --save-exact --loglevel=error --ignore-scripts "$@" >&2
	echo "$*" >"$dir/.pins"
}

# native DIR PATTERN...: the first executable matching one of the patterns
# under DIR/node_modules that runs; its version goes to stderr.
native() {
	local dir=$1 p f v
	shift
	for p in "$@"; do
		for f in "$dir"/node_modules/$p; do
			if [ -x "$f" ] && v=$(HOME=$scratch XDG_CONFIG_HOME=$scratch/.config XDG_CACHE_HOME=$scratch/.cache \
				XDG_DATA_HOME=$scratch/.local/share XDG_STATE_HOME=$scratch/.local/state "$f" --version 2>/dev/null); then
				say "$f: $v"
				echo "$f"
				return 0
			fi
		done
	done
	return 1
}

# host DIR SPEC PATTERN...: installs SPEC into DIR (again, when what is
# there does not run) and prints its binary.
host() {
	local dir=$1 spec=$2
	shift 2
	npm_pin "$dir" "$spec" || return 1
	native "$dir" "$@" && return 0
	[ $install = 1 ] || { say "no runnable binary for $spec under $dir"; return 1; }
	rm -f "$dir/.pins"
	npm_pin "$dir" "$spec"
	native "$dir" "$@" || { say "no runnable binary for $spec under $dir"; return 1; }
}

claude=$(host "$cache/claude-code" "@anthropic-ai/claude-code@$claude_version" \
	"@anthropic-ai/claude-code-linux-x64/claude" "@anthropic-ai/claude-code-*/claude")
opencode=$(host "$cache/opencode" "opencode-ai@$opencode_version" \
	"opencode-linux-x64/bin/opencode" "opencode-linux-x64-baseline/bin/opencode" "opencode-*/bin/opencode")

npm_pin "$cache/opencode-plugin" "@opencode-ai/plugin@$opencode_version"
[ -f "$cache/opencode-plugin/node_modules/@opencode-ai/plugin/package.json" ] && [ -f "$cache/opencode-plugin/package-lock.json" ] || {
	[ $install = 1 ] || { say "@opencode-ai/plugin is broken in $cache/opencode-plugin"; exit 1; }
	rm -f "$cache/opencode-plugin/.pins"
	npm_pin "$cache/opencode-plugin" "@opencode-ai/plugin@$opencode_version"
}

# ripgrep from crates.io, built with cargo into the cache: no root, no
# system package.
rg_version=15.2.0
rg_dir=$cache/ripgrep
rg=$rg_dir/bin/rg
if [ "$(cat "$rg_dir/.pins" 2>/dev/null)" != "ripgrep@$rg_version" ] || ! "$rg" --version >/dev/null 2>&1; then
	[ $install = 1 ] || { say "ripgrep $rg_version is not installed in $rg_dir"; exit 1; }
	command -v cargo >/dev/null || { say "cargo is required to build ripgrep (opencode's skill tool needs it)"; exit 1; }
	say "building ripgrep $rg_version from crates.io with cargo into $rg_dir (about 2 minutes on 2 cores)"
	rm -rf "$rg_dir"
	cargo install --locked --quiet --root "$rg_dir" "ripgrep@$rg_version" >&2
	echo "ripgrep@$rg_version" >"$rg_dir/.pins"
fi
say "$rg: $("$rg" --version | head -n 1)"

printf 'SKI_CLAUDE=%q\nSKI_OPENCODE=%q\nSKI_OPENCODE_PLUGIN=%q\nSKI_RG=%q\n' \
	"$claude" "$opencode" "$cache/opencode-plugin" "$rg"

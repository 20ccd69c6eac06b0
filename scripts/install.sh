#!/usr/bin/env bash
# install.sh [claude|opencode|all] [--uninstall [--purge]] — install ski for a user.
#
#   1. scripts/setup.sh: ONNX Runtime, the models, the stages in bin/
#   2. copies ski and the stages to $XDG_DATA_HOME/ski/bin and the hook
#      scripts to $XDG_DATA_HOME/ski/scripts, and links them into ~/.local/bin
#   3. builds the index of the user's skills for each host (progress on a
#      terminal)
#   4. ski-install: Claude Code hooks in ~/.claude/settings.json (backed up),
#      the opencode plugin in $XDG_CONFIG_HOME/opencode/plugin/ski.js
# Idempotent. --uninstall puts back what was there before: it takes out the
# hooks and plugin (a settings file ski created goes, one it changed gets
# its content back), the links, everything ski put under XDG_DATA_HOME,
# XDG_CACHE_HOME, XDG_STATE_HOME and XDG_RUNTIME_DIR, the folders the
# install made and ski's backups, and stops the embed servers; your config
# ($XDG_CONFIG_HOME/ski) and the set-up cache ($SKI_SETUP_CACHE) are kept;
# with --purge the set-up cache goes too.
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
host=all uninstall=0 purge=0
for arg in "$@"; do
	case $arg in
	claude | opencode | all) host=$arg ;;
	--uninstall) uninstall=1 ;;
	--purge) purge=1 ;;
	-h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "install: unknown argument $arg (want claude, opencode, all, --uninstall or --purge)" >&2; exit 2 ;;
	esac
done
if [ $purge = 1 ] && [ $uninstall = 0 ]; then
	echo "install: --purge goes with --uninstall" >&2
	exit 2
fi
data=${XDG_DATA_HOME:-$HOME/.local/share}/ski
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ski
state=${XDG_STATE_HOME:-$HOME/.local/state}/ski
config=${XDG_CONFIG_HOME:-$HOME/.config}/ski
setup_cache=${SKI_SETUP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ski-setup}
links=$HOME/.local/bin
record=$data/installed # what the install made (internal/install's Record)
say() { echo "install: $*" >&2; }

if [ $uninstall = 1 ]; then
	# The folders the install made, read before the record goes with $data.
	made=()
	if [ -f "$record" ]; then
		while IFS=$'\t' read -r kind path; do
			[ "$kind" = dir ] && made+=("$path")
		done <"$record"
	fi
	if [ -x "$data/bin/ski-install" ]; then
		"$data/bin/ski-install" --host "$host" --uninstall
	elif [ -x bin/ski-install ]; then
		bin/ski-install --host "$host" --uninstall
	fi
	[ "$host" = all ] || exit 0
	for l in "$links"/ski "$links"/ski-*; do
		[ -L "$l" ] && [[ "$(readlink "$l")" == "$data/bin/"* ]] && rm -f "$l"
	done
	# Stop the embed servers: the lock file beside each socket holds the
	# server's process id; only a process whose command line is ski's
	# server is signalled (a stale file may name a reused id).
	run=$state/run
	case ${XDG_RUNTIME_DIR:-} in /*) run=$XDG_RUNTIME_DIR/ski ;; esac
	for lock in "$run"/embed-*.sock.lock; do
		[ -f "$lock" ] || continue
		pid=$(cat "$lock" 2>/dev/null) || continue
		case $pid in '' | *[!0-9]*) continue ;; esac
		if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- 'ski-embed[^ ]* --serve'; then
			kill "$pid" 2>/dev/null || :
		fi
	done
	# Stop background index builders: each names its process id in the
	# progress file beside the index it builds.
	for prog in "$cache"/index/*.progress; do
		[ -f "$prog" ] || continue
		pid=$(grep -o '"pid":[0-9]*' "$prog" 2>/dev/null | cut -d: -f2) || continue
		case $pid in '' | *[!0-9]*) continue ;; esac
		if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- 'ski-embed[^ ]* --builder'; then
			kill "$pid" 2>/dev/null || :
		fi
	done
	rm -rf "$data" "$cache" "$state" "$run"
	say "removed $data, $cache (indexes and the embedding cache), $state, $run and the links in $links; stopped the embed servers and index builders"
	if [ $purge = 1 ]; then
		rm -rf "$setup_cache"
		say "removed the set-up cache $setup_cache"
	elif [ -d "$setup_cache" ]; then
		say "kept the set-up cache $setup_cache ($(du -sh "$setup_cache" 2>/dev/null | cut -f1): downloads and builds for another set-up, and the tests' tools); --uninstall --purge removes it"
	fi
	# The folders the install made, deepest first, when nothing else is in
	# them now.
	for ((i = ${#made[@]} - 1; i >= 0; i--)); do
		rmdir -- "${made[i]}" 2>/dev/null || :
	done
	if [ -d "$config" ]; then
		say "kept your config $config"
	fi
	exit 0
fi

# The folders on the way to what the install and the set-up write that are
# not there yet, outermost first: uninstall removes them again.
made=()
for p in "$data/bin" "$data/scripts" "$cache" "$state" "$links" "$setup_cache" \
	"${XDG_CONFIG_HOME:-$HOME/.config}/opencode/plugin" "${CLAUDE_CONFIG_DIR:-$HOME/.claude}"; do
	missing=()
	while [ ! -e "$p" ] && [ ! -L "$p" ]; do
		missing=("$p" "${missing[@]}")
		p=$(dirname -- "$p")
	done
	made+=("${missing[@]}")
done

scripts/setup.sh
mkdir -p "$data/bin" "$data/scripts" "$links"
for d in "${made[@]}"; do
	grep -qxF "dir	$d" "$record" 2>/dev/null || printf 'dir\t%s\n' "$d" >>"$record"
done
for f in bin/ski bin/ski-*; do
	install -m 0755 "$f" "$data/bin/"
	ln -sfn "$data/bin/$(basename "$f")" "$links/$(basename "$f")"
done
install -m 0755 scripts/hook-claude.sh scripts/hook-opencode.sh "$data/scripts/"
install -m 0644 scripts/hook-lib.sh "$data/scripts/"
say "stages in $data/bin (linked from $links), hook scripts in $data/scripts"
case :$PATH: in *:"$links":*) ;; *) say "note: $links is not on your PATH" ;; esac

for h in claude opencode; do
	[ "$host" = all ] || [ "$host" = $h ] || continue
	printf '{"cwd":"%s"}\n' "$HOME" | "$data/bin/ski-embed" --refresh --host $h >/dev/null
done
say "indexed your skills"
"$data/bin/ski-install" --host "$host" --scripts "$data/scripts"

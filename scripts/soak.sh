#!/usr/bin/env bash
# soak.sh — a long life of ski as users live it (not part of CI; docs/perf.md
# has its numbers). In a fresh home, scripts/install.sh installs ski for both
# hosts over a copy of a skills catalog; then sessions of both hosts, a few
# at a time, send the hook scripts the hosts' payloads (session start, then
# prompts from the labelled eval set), while every so many prompts a skill
# is edited, one added and the one added before removed. One embed server
# serves them all, started by the first session. At the end the checks:
#   - every hook call exited 0 within 2 s
#   - no skill was injected twice in a session
#   - the embed server lived through the run (one process), and its RSS and
#     open files (but its folder watches, one per project) stayed flat: the
#     last quarter's median within 10 % and 2 MB of the first quarter's, at
#     most 2 more files
#   - it never kept a zombie child (one seen in two samples in a row)
#   - nothing of the home is left running after install.sh --uninstall
# It prints the numbers and exits 1 when a check fails.
#
#   SKI_SOAK_PROMPTS      prompts in all (3000)
#   SKI_SOAK_SESSIONS     sessions, half of each host (60)
#   SKI_SOAK_PARALLEL     sessions at a time (4)
#   SKI_SOAK_CHANGE_EVERY prompts between skill changes (250)
#   SKI_SOAK_MINUTES      the least the run lasts: prompts are paced (60)
#   SKI_SOAK_ROOT         the catalog copied (../shared/skills-corpus)
#   SKI_SOAK_DIR          where the home and the logs go (a new temporary
#                         directory; kept, and named at the end)
# Run it niced on a shared machine: nice scripts/soak.sh
set -euo pipefail
cd "${SKI_SOAK_REPO:-$(dirname -- "${BASH_SOURCE[0]}")/..}"
repo=$PWD
prompts=${SKI_SOAK_PROMPTS:-3000}
sessions=${SKI_SOAK_SESSIONS:-60}
parallel=${SKI_SOAK_PARALLEL:-4}
every=${SKI_SOAK_CHANGE_EVERY:-250}
minutes=${SKI_SOAK_MINUTES:-60}
shared=${SKI_SHARED:-$(cd .. && pwd)/shared}
catalog=$(cd "${SKI_SOAK_ROOT:-$shared/skills-corpus}" && pwd)
work=${SKI_SOAK_DIR:-$(mktemp -d /tmp/ski-soak-XXXXXX)}
say() { echo "soak: $*" >&2; }
# The run is long: it goes on from a copy of this script, so that the
# checkout may change meanwhile.
if [ "${SKI_SOAK_REPO:-}" = "" ]; then
	mkdir -p "$work"
	cp -- "${BASH_SOURCE[0]}" "$work/soak.sh"
	SKI_SOAK_REPO=$repo SKI_SOAK_DIR=$work exec bash "$work/soak.sh"
fi

# The invoking user's set-up cache and Go's settings and caches serve the
# soak's home, whose own folders start empty.
export SKI_SETUP_CACHE=${SKI_SETUP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ski-setup} SKI_SETUP_MODELS=bge-small-en-v1.5-q
GOENV=$(go env GOENV) GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE) GOPATH=$(go env GOPATH)
export GOENV GOCACHE GOMODCACHE GOPATH
unset XDG_CONFIG_HOME XDG_CACHE_HOME XDG_DATA_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
home=$work/home skills=$work/home/skills logs=$work/logs
mkdir -p "$home" "$logs"
for p in 0 1 2 3; do mkdir -p "$home/project-$p"; done
cp -r "$catalog" "$skills"
chmod -R u+w "$skills"
# as_user CMD...: CMD as the soak's user (its home, the catalog as its roots).
as_user() { HOME=$home SKI_ROOTS=$skills "$@"; }

say "installing into $home"
as_user scripts/install.sh >"$logs/install.log" 2>&1 || { cat "$logs/install.log" >&2; exit 1; }
hooks=$home/.local/share/ski/scripts
run=$home/.local/state/ski/run

# The prompts: the labelled eval set's.
mapfile -t texts < <(tail -n +2 "$shared/eval/dev.tsv" | cut -f2)
json() { local s=${1//\\/\\\\}; printf '%s' "${s//\"/\\\"}"; }

# payload NAME SESSION PROJECT [PROMPT]: a payload of testdata/payloads
# for this session, project and prompt.
payload() {
	local t
	t=$(<"$repo/testdata/payloads/$1")
	t=${t//9b2f6c1e-4a7d-4f3e-8c55-2d0e7f1a6b90/$2}
	t=${t//ses_5f2a9c3e1ffeYqT8mWb2LkR4sN/$2}
	t=${t//\/home\/dev\/shop/$3}
	if [ -n "${4:-}" ]; then
		t=${t//write a blameless postmortem for yesterday\'s 40 minute checkout outage, the timeline is in incident-notes.md/$(json "$4")}
	fi
	printf '%s' "$t"
}

# hook HOST MODE PAYLOAD: runs the hook as the host does, and logs
# "ms rc host mode session" to calls.log and its output to the session's
# file.
hook() {
	local start end out rc=0 sid=$4
	start=$(date +%s%N)
	out=$(printf '%s' "$3" | as_user sh "$hooks/hook-$1.sh" "$2" 2>/dev/null) || rc=$?
	end=$(date +%s%N)
	printf '%d %d %s %s %s\n' $(((end - start) / 1000000)) "$rc" "$1" "$2" "$sid" >>"$logs/calls.log"
	[ -z "$out" ] || printf '%s\n' "$out" >>"$logs/session-$sid.out"
}

# session N: session N from start to end, its prompts paced so that the run
# lasts $minutes.
per_session=$((prompts / sessions))
gap_ms=$((minutes * 60000 * parallel / prompts))
session() {
	local n=$1 host=claude sid project i text p t0 left
	[ $((n % 2)) = 0 ] || host=opencode
	sid=soak-$host-$n project=$home/project-$((n % 4))
	hook "$host" session-start "$(payload "$host-session-startup.json" "$sid" "$project")" "$sid"
	for ((i = 0; i < per_session; i++)); do
		t0=$(date +%s%N)
		text=${texts[$(((n * 37 + i * 11) % ${#texts[@]}))]}
		p=$(payload "$host-prompt.json" "$sid" "$project" "$text")
		hook "$host" prompt "$p" "$sid"
		left=$((gap_ms - ($(date +%s%N) - t0) / 1000000))
		[ $left -le 0 ] || sleep "$(printf '%d.%03d' $((left / 1000)) $((left % 1000)))"
	done
}

# changer: every $every prompts, a skill edited, one added, the one added
# before removed.
changer() {
	local k=0 done=0 victims
	mapfile -t victims < <(find "$skills" -name SKILL.md | sort | head -n 50)
	while [ ! -f "$logs/done" ]; do
		done=$(grep -c ' prompt ' "$logs/calls.log" 2>/dev/null || true)
		if [ "${done:-0}" -ge $(((k + 1) * every)) ]; then
			k=$((k + 1))
			printf '\nSoak edit %d.\n' $k >>"${victims[$((k % ${#victims[@]}))]}"
			mkdir -p "$skills/soak-added-$k"
			printf -- '---\nname: soak-added-%d\ndescription: Calibrate the soak test rig number %d: torque the flange bolts and log the gauge drift.\n---\n# Soak rig %d\n' $k $k $k >"$skills/soak-added-$k/SKILL.md"
			rm -rf "$skills/soak-added-$((k - 1))"
			printf '%s change %d after %d prompts\n' "$(date +%s)" $k "$done" >>"$logs/changes.log"
		fi
		sleep 1
	done
}

# monitor: every 15 s, of each embed server: time, pid, RSS kB, threads,
# open files but folder watches, zombie children ("-": none), children, the
# processes of the home, folder watches.
procs_of_home() {
	local p n=0
	for p in /proc/[0-9]*; do
		if { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "HOME=$home"; then n=$((n + 1)); fi
	done
	echo $n
}
sample() {
	local lock pid rss threads fds watches zombies children c s state ppid
	for lock in "$run"/*.sock.lock; do
		[ -f "$lock" ] || continue
		pid=$(cat "$lock" 2>/dev/null) || continue
		[ -d "/proc/$pid" ] || continue
		rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status") || continue
		threads=$(awk '/^Threads/ {print $2}' "/proc/$pid/status") || continue
		# Open files but the folder watches (one per project watched).
		fds=$(find "/proc/$pid/fd" -mindepth 1 -printf '%l\n' | grep -vc inotify) || continue
		watches=$(find "/proc/$pid/fd" -mindepth 1 -printf '%l\n' | grep -c inotify) || :
		zombies="" children=0
		for c in /proc/[0-9]*/stat; do
			{ read -r s <"$c"; } 2>/dev/null || continue
			# After the command name, which is in parentheses: state, parent.
			read -r state ppid _ <<<"${s##*) }"
			if [ "$ppid" = "$pid" ]; then
				children=$((children + 1))
				c=${c#/proc/}
				[ "$state" != Z ] || zombies="$zombies,${c%/stat}"
			fi
		done
		zombies=${zombies#,}
		printf '%s %s %s %s %s %s %s %s %s\n' "$(date +%s)" "$pid" "$rss" "$threads" "$fds" "${zombies:--}" "$children" "$(procs_of_home)" "$watches" >>"$logs/monitor.log"
	done
}
monitor() {
	while [ ! -f "$logs/done" ]; do
		sample
		sleep 15
	done
}

say "$prompts prompts, $sessions sessions of both hosts, $parallel at a time, a change every $every prompts, at least $minutes minutes; logs in $logs"
: >"$logs/calls.log"
started=$(date +%s)
changer &
changer_pid=$!
monitor &
monitor_pid=$!
for ((w = 0; w < parallel; w++)); do
	(for ((n = w; n < sessions; n += parallel)); do session $n; done) &
done
wait_workers() {
	local j
	for j in $(jobs -p); do
		[ "$j" = $changer_pid ] || [ "$j" = $monitor_pid ] || wait "$j"
	done
}
wait_workers
sample
touch "$logs/done"
wait $changer_pid $monitor_pid
ended=$(date +%s)

say "uninstalling"
as_user scripts/install.sh --uninstall >"$logs/uninstall.log" 2>&1 || { cat "$logs/uninstall.log" >&2; exit 1; }
sleep 2
left=$(procs_of_home)

# The checks.
fail=0
check() { if [ "$1" = ok ]; then printf '  ok    %s\n' "$2"; else printf '  FAIL  %s\n' "$2"; fail=1; fi; }
calls=$(wc -l <"$logs/calls.log")
bad=$(awk '$2 != 0' "$logs/calls.log" | wc -l)
slow=$(awk '$1 > 2000' "$logs/calls.log" | wc -l)
read -r p50 p99 max < <(awk '$4 == "prompt" {print $1}' "$logs/calls.log" | sort -n |
	awk '{a[NR] = $1} END {print a[int(NR * 0.5) + 1], a[int(NR * 0.99) + 1], a[NR]}')
twice=0
for f in "$logs"/session-*.out; do
	[ -f "$f" ] || continue
	n=$(grep -o 'the skill \\"[^\\]*\\"' "$f" | sort | uniq -d | wc -l)
	twice=$((twice + n))
done
injected=$(cat "$logs"/session-*.out 2>/dev/null | grep -o 'the skill \\"[^\\]*\\"' | wc -l)
servers=$(awk '{print $2}' "$logs/monitor.log" | sort -u | wc -l)
life=$(awk 'NR == 1 {a = $1} {b = $1} END {print b - a}' "$logs/monitor.log")
# quarter COLUMN first|last: the median of a column of the monitor's first
# or last quarter of samples.
quarter() {
	local n
	n=$(($(wc -l <"$logs/monitor.log") / 4))
	[ $n -ge 1 ] || n=1
	if [ "$2" = first ]; then head -n $n "$logs/monitor.log"; else tail -n $n "$logs/monitor.log"; fi |
		awk -v c="$1" '{print $c}' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}
rss1=$(quarter 3 first) rss4=$(quarter 3 last) fd1=$(quarter 5 first) fd4=$(quarter 5 last)
rssmax=$(awk 'm < $3 {m = $3} END {print m}' "$logs/monitor.log")
fdmax=$(awk 'm < $5 {m = $5} END {print m}' "$logs/monitor.log")
watchmax=$(awk 'm < $9 {m = $9} END {print m}' "$logs/monitor.log")
# A zombie seen in two samples in a row (15 s apart) is kept, not reaped.
lingering=$(awk '{n = ($6 == "-") ? 0 : split($6, z, ","); for (i = 1; i <= n; i++) if ((z[i] in seen) && seen[z[i]] == NR - 1) c++; for (i = 1; i <= n; i++) seen[z[i]] = NR} END {print c + 0}' "$logs/monitor.log")
zmax=$(awk '{n = ($6 == "-") ? 0 : split($6, z, ","); if (n > m) m = n} END {print m + 0}' "$logs/monitor.log")
changes=$(wc -l <"$logs/changes.log" 2>/dev/null || echo 0)

echo "soak: $calls hook calls ($prompts prompts) in $(((ended - started) / 60)) min $(((ended - started) % 60)) s; server life $((life / 60)) min; $changes skill changes; $injected injections"
echo "  prompt hook: p50 ${p50} ms, p99 ${p99} ms, max ${max} ms"
echo "  server RSS: first quarter ${rss1} kB, last quarter ${rss4} kB, max ${rssmax} kB; open files (but ${watchmax} folder watches at most): ${fd1}, ${fd4}, max ${fdmax}; zombies: at most ${zmax} in a sample, ${lingering} kept"
check "$([ "$bad" = 0 ] && echo ok)" "every hook call exited 0 ($bad did not)"
check "$([ "$slow" = 0 ] && echo ok)" "every hook call returned within 2 s ($slow did not)"
check "$([ "$twice" = 0 ] && echo ok)" "no skill injected twice in a session ($twice were)"
check "$([ "$servers" = 1 ] && echo ok)" "one embed server for the whole run ($servers seen)"
check "$([ "$rss4" -le $((rss1 * 110 / 100 + 2048)) ] && echo ok)" "the server's RSS flat (${rss1} -> ${rss4} kB)"
check "$([ "$fd4" -le $((fd1 + 2)) ] && echo ok)" "the server's open files flat (${fd1} -> ${fd4})"
check "$([ "$lingering" = 0 ] && echo ok)" "no zombie kept by the server"
check "$([ "$left" = 0 ] && echo ok)" "nothing of the home running after install.sh --uninstall ($left processes)"
echo "logs: $logs"
exit $fail

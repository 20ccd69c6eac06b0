#!/usr/bin/env python3
"""bench-reader.py: what the reader costs the warm prompt hook. Runs the
Claude prompt hook on prompts (dev.tsv's second column, or one per line;
all of them in a seeded shuffle, or the first --pairs),
each twice in a new session, once with the reader off and once on in the
config (the order alternating pair by pair, so both sides see the same
machine), and prints each side's p50/p95/p99, the paired difference, and,
from the embed server's counts (ski status), how many prompts the reader
read, its mean time and how many it declined past its share. The embed server must be running. Used by
scripts/bench-hook.sh."""
import argparse, json, os, random, re, statistics, subprocess, time, uuid


def counts(ski):
    out = subprocess.run([ski, "status", "--host", "claude"], capture_output=True, text=True).stdout
    m = re.search(r"since it started: (\d+) prompts, (none|\d+) read by the reader(?: \([^)]*\))?(?:, (\d+) more left to the judge)?", out)
    if not m:
        raise SystemExit("bench-reader.py: ski status names no embed server counts:\n" + out)
    return int(m.group(1)), 0 if m.group(2) == "none" else int(m.group(2)), int(m.group(3) or 0)


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hook", required=True)
    ap.add_argument("--ski", required=True)
    ap.add_argument("--payload", required=True)
    ap.add_argument("--prompts", required=True)
    ap.add_argument("--config", required=True, help="the config file to write reader = true/false into")
    ap.add_argument("--pairs", type=int, default=0, help="how many prompts (default: all, in a seeded shuffle)")
    a = ap.parse_args()
    lines = [l.rstrip("\n") for l in open(a.prompts, encoding="utf-8") if l.strip()]
    if a.prompts.endswith(".tsv"):
        lines = [l.split("\t")[1] for l in lines[1:]]
    random.Random(1).shuffle(lines)
    a.pairs = a.pairs or len(lines)
    base = json.load(open(a.payload))
    os.makedirs(os.path.dirname(a.config), exist_ok=True)
    times = {False: [], True: []}
    before = counts(a.ski)
    for i in range(a.pairs):
        prompt = lines[i % len(lines)]
        for on in ((False, True) if i % 2 == 0 else (True, False)):
            with open(a.config, "w") as f:
                f.write("reader = %s\n" % ("true" if on else "false"))
            payload = json.dumps(dict(base, prompt=prompt, session_id=str(uuid.uuid4()), prompt_id=str(uuid.uuid4())))
            t = time.perf_counter()
            subprocess.run(["sh", a.hook, "prompt"], input=payload.encode(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[on].append((time.perf_counter() - t) * 1000)
    after = counts(a.ski)
    reads, declined = after[1] - before[1], after[2] - before[2]
    for on in (False, True):
        t = times[on]
        print("%-26s p50 %7.1f ms  p95 %7.1f ms  p99 %7.1f ms  (n=%d)" % ("warm, reader " + ("on" if on else "off"), pct(t, .5), pct(t, .95), pct(t, .99), len(t)))
    diff = [b - a for a, b in zip(times[False], times[True])]
    # The second call of a pair finds the prompt's vector in the server's
    # cache; the order alternates, so the mean of the differences cancels
    # that (their median does not).
    print("  reader on minus off, pair by pair: mean %+.1f ms" % statistics.mean(diff))
    m = re.search(r"\((\d+) ms each", subprocess.run([a.ski, "status", "--host", "claude"], capture_output=True, text=True).stdout)
    print("  the reader read %d of the %d prompts with it on (%.0f%%), %s ms each on average since the server started;"
          " %d more past its share left to the judge" % (reads, a.pairs, 100 * reads / a.pairs, m.group(1) if m else "-", declined))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""misses.py DUMP...: where the rows needing a skill are lost. Each expected
group of a row needing a skill (mentions aside) in a `ski-eval --top 10
--candidates` dump, by what ski shows for it: injected, suggested only, a
wrong skill injected, nothing shown with the right skill first or lower,
wrong skills suggested. For the groups with nothing shown, the confidence
of their best candidate and the share of the rows needing no skill whose
best candidate is at least as confident (what a suggest edge under them
would show). Development only; standard library."""
import json
import sys
from collections import Counter, defaultdict

KINDS = ("injected", "suggested only", "a wrong skill injected",
         "nothing, right first", "nothing, right lower", "wrong skills suggested")


def shown(cands):
    """A row's candidates by the gate's decision: decision -> ids."""
    out = defaultdict(set)
    for c in cands:
        out[c["decision"]].add(c["id"])
    return out


def kind(group, cands, by_decision):
    """What ski shows for one expected group (alternatives) of a row."""
    if group & by_decision["inject"]:
        return "injected"
    if group & by_decision["suggest"]:
        return "suggested only"
    first = cands[0]["decision"] if cands else "drop"
    if first == "inject":
        return "a wrong skill injected"
    if first == "suggest":
        return "wrong skills suggested"
    return "nothing, right first" if cands and cands[0]["id"] in group else "nothing, right lower"


def confidence(cands):
    return cands[0].get("confidence", 0) if cands else 0


def main(paths):
    for path in paths:
        counts, dropped, none = Counter(), [], []
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                if r["category"] == "mention":
                    continue
                cands = r["selections"]
                if not r["expected"]:
                    none.append(confidence(cands))
                    continue
                by_decision = shown(cands)
                for g in r["expected"]:
                    k = kind(set(g), cands, by_decision)
                    counts[k] += 1
                    if k.startswith("nothing"):
                        dropped.append(confidence(cands))
        groups = sum(counts.values())
        print(f"{path}: {groups} groups; " + ", ".join(f"{k} {counts[k]}" for k in KINDS))
        if dropped and none:
            low = min(dropped)
            share = sum(c >= low for c in none) / len(none)
            print(f"  nothing shown at confidence {low:.2f}-{max(dropped):.2f}; "
                  f"{100 * share:.0f} % of the {len(none)} rows needing none score at least {low:.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])

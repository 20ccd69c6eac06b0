#!/usr/bin/env python3
"""fit.py DUMP SCORES OUT.json: the reader's values (internal/reader's
params.json) fitted on the validation catalog only: how the judge's and
the reader's beliefs combine (a logistic regression over the log-odds of
both, on the candidates the reader reads, each labelled right when the row
expects it), then how that belief is put on the judge's scale (a scale and
a shift of its log-odds: the regression answers "is this candidate right?"
over ten candidates a prompt, the judge "is the best one right?") and the
band of the judge's confidence in the best candidate within which the
reader runs: among a grid, the values with the most rows needing a skill
whose injected candidate is right, at no more negatives injected and no
more adjacent requests injected (each apart: a dump may join
testdata/judge's adjacent.tsv to prompts.tsv, and one limit over both
would let a fit trade one for the other), no fewer rows reached and no
more rows needing none given suggestions than without the reader, with
the shipped inject and suggest confidences, and the reader running on at
most --max-share of the rows.
Development only; needs numpy."""
import argparse, json, math
from collections import namedtuple
import numpy as np

READ = 10  # candidates the reader reads per prompt (internal/reader params.json "read")
JUDGED = 5  # candidates the judge rates per prompt (internal/judge.Judged); below them its confidence is 0


def logit(p):
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def sig(x):
    return 1 / (1 + math.exp(-x))


def wanted(r):
    """The skills a dump row expects, any group's alternatives (none: empty)."""
    return {s for g in (r["expected"] or []) for s in g}


def load(dump, scores):
    sc = {}
    for l in open(scores):
        r = json.loads(l)
        sc[r["line"]] = r["reader"]
    rows = []
    for l in open(dump):
        r = json.loads(l)
        cands = r["cands"][:READ]
        rows.append({"line": r["line"], "cat": r["category"], "want": wanted(r),
                     "ids": [c["id"] for c in cands], "mention": any(c.get("mention") for c in r["cands"]),
                     "conf": [c["confidence"] if c["confidence"] is not None else 0.0 for c in cands],
                     "reader": sc[r["line"]]})
    return rows


def judge_term(p, conf, i):
    """The judge's part of candidate i's combined log-odds: its weight times
    the log-odds of its confidence, or for a candidate below the judged few
    (which the judge never rated) the fitted constant unjudged when p has it."""
    if i < JUDGED:
        return p["judge"] * logit(conf)
    return p.get("unjudged", p["judge"] * logit(0))  # without it: as if rated 0


def fit_weights(rows, unjudged=False, iters=3000, lr=0.05, l2=1e-3):
    """The logistic regression's weights and bias over the read candidates:
    on the judge's log-odds and the reader's; with unjudged, the judge's are
    0 below the judged few and a third weight is on whether the judge left
    the candidate unrated (the fitted constant unjudged)."""
    x, y = [], []
    for r in rows:
        if r["mention"] or not r["ids"]:
            continue
        for i, cid in enumerate(r["ids"]):
            if unjudged:
                x.append([logit(r["conf"][i]) if i < JUDGED else 0.0, r["reader"][i], 0.0 if i < JUDGED else 1.0])
            else:
                x.append([logit(r["conf"][i]), r["reader"][i]])
            y.append(1.0 if cid in r["want"] else 0.0)
    x, y = np.array(x), np.array(y)
    w, b = np.zeros(x.shape[1]), 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = p - y
        w -= lr * (x.T @ g / len(y) + l2 * w)
        b -= lr * g.mean()
    return w, b


def reads(r, p, use):
    """Whether the reader (when use) reads row r with the values p: the
    judge's confidence in its best candidate is in the band and no
    candidate is named (reader.Params.Unsure)."""
    return use and not r["mention"] and bool(r["ids"]) and p["low"] <= r["conf"][0] <= p["high"]


def outcome(r, p, use, inject, suggest):
    """(right first injected, anything injected, right among the injected
    and suggested, anything suggested) for one row, as ski's gate decides
    with its default caps (2 injected, 3 suggested)."""
    conf = list(r["conf"])
    order = list(range(len(r["ids"])))
    if reads(r, p, use):
        comb = [sig(judge_term(p, conf[i], i) + p["reader"] * r["reader"][i] + p["bias"]) for i in order]
        order = sorted(order, key=lambda i: -comb[i])
        conf = [comb[i] for i in order]
    else:
        conf = [conf[i] for i in order]
    injected = [r["ids"][order[k]] for k in range(len(order)) if conf[k] >= inject][:2]
    suggested = [r["ids"][order[k]] for k in range(len(order)) if suggest <= conf[k] < inject][:3]
    return (bool(injected) and injected[0] in r["want"]), bool(injected), bool(r["want"] & set(injected + suggested)), bool(suggested)


# What evaluate measures over rows: the share of those needing a skill whose
# first injected one is right (right), of negatives with an injection (fp),
# of rows the reader reads (share), of those needing a skill reached, injected
# or suggested (reached), of those needing none with a suggestion (noise), of
# adjacent requests with an injection (adjacent; 0 when the dump has none),
# and of the adjacent requests held apart (apart: those from the line number
# --apart on, 0 without).
Measures = namedtuple("Measures", "right fp share reached noise adjacent apart")


def evaluate(rows, p, use, inject, suggest, apart=None):
    """Measures over rows, with the reader's values p (used when use); the
    adjacent requests from line apart on are measured apart."""
    outs = [outcome(r, p, use, inject, suggest) for r in rows]
    pos = [o for r, o in zip(rows, outs) if r["want"] and not r["mention"]]
    neg = [o for r, o in zip(rows, outs) if r["cat"] == "negative"]
    held = lambda r: apart is not None and r["line"] >= apart
    adj = [o for r, o in zip(rows, outs) if r["cat"] == "adjacent" and not held(r)]
    adj_apart = [o for r, o in zip(rows, outs) if r["cat"] == "adjacent" and held(r)]
    none = [o for r, o in zip(rows, outs) if not r["want"] and not r["mention"]]
    share = sum(1 for r in rows if reads(r, p, use)) / len(rows)
    mean = lambda xs, k: sum(x[k] for x in xs) / max(len(xs), 1)
    return Measures(mean(pos, 0), mean(neg, 1), share, mean(pos, 2), mean(none, 3), mean(adj, 1), mean(adj_apart, 1))


def limits_hold(m, base):
    """Whether m injects no more negatives, adjacent requests and adjacent
    requests held apart than base."""
    return m.fp <= base.fp + 1e-9 and m.adjacent <= base.adjacent + 1e-9 and m.apart <= base.apart + 1e-9


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dump"); ap.add_argument("scores"); ap.add_argument("out")
    ap.add_argument("--inject", type=float, default=0.70)
    ap.add_argument("--suggest", type=float, default=0.38)
    ap.add_argument("--max-share", type=float, default=0.4, help="the most of the rows the band may read (and params.json's max_share)")
    ap.add_argument("--model", default="ski-reader-v4")
    ap.add_argument("--hold-at", type=float, help="an inject edge below --inject at which the negatives and adjacent limits hold too (a fold's fitted edge can sit below the shipped one)")
    ap.add_argument("--apart", type=int, help="hold the adjacent requests from this line number on (a file joined to the dump with its lines raised) to a limit of their own")
    ap.add_argument("--unjudged", action="store_true", help="fit a constant for the candidates below the judge's few in place of the judge's term at confidence 0")
    a = ap.parse_args()
    rows = load(a.dump, a.scores)
    w, b = fit_weights(rows, a.unjudged)
    p = {"model": a.model, "on": False, "read": READ, "judge": round(float(w[0]), 4), "reader": round(float(w[1]), 4), "bias": round(float(b), 4)}
    weighed = ("judge", "reader")
    if a.unjudged:
        p["unjudged"] = round(float(w[2]), 4)
        weighed += ("unjudged",)
    # Without the reader, at the inject edge and at --hold-at's: the limits.
    lower = [a.hold_at] if a.hold_at is not None else []
    base_at = {e: evaluate(rows, p | {"low": 2, "high": 2}, False, e, a.suggest, a.apart) for e in [a.inject] + lower}
    base = base_at[a.inject]
    best = None
    for scale in [0.6, 0.8, 1.0, 1.3, 1.6, 2.0, 2.5]:
        for shift in [x * 0.25 for x in range(24)]:
            on_scale = {k: p[k] * scale for k in weighed} | {"bias": p["bias"] * scale + shift}
            for lo in [0.0, 0.05, 0.1, 0.2, 0.3]:
                for hi in [0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0]:
                    q = p | on_scale | {"low": lo, "high": hi}
                    m = evaluate(rows, q, True, a.inject, a.suggest, a.apart)
                    at = {a.inject: m} | {e: evaluate(rows, q, True, e, a.suggest, a.apart) for e in lower}
                    holds = (m.reached >= base.reached - 1e-9 and m.noise <= base.noise + 1e-9 and m.share <= a.max_share
                             and all(limits_hold(at[e], base_at[e]) for e in at))
                    if holds and (best is None or m.right > best[0].right + 1e-9 or (abs(m.right - best[0].right) < 1e-9 and m.share < best[0].share)):
                        best = (m, q)
    p = best[1] | {k: round(float(best[1][k]), 4) for k in weighed + ("bias",)}
    p["max_share"] = a.max_share  # the server holds the reader to it online (reader.Share)
    after = evaluate(rows, p, True, a.inject, a.suggest, a.apart)
    p["fitted_on"] = (f"{a.dump}: right first injected {base.right:.3f} -> {after.right:.3f}, negatives injected {base.fp:.3f} -> {after.fp:.3f}, "
                      f"adjacent requests injected {base.adjacent:.3f} -> {after.adjacent:.3f}, "
                      + (f"those held apart {base.apart:.3f} -> {after.apart:.3f}, " if a.apart is not None else "") +
                      f"reached {base.reached:.3f} -> {after.reached:.3f}, noise {base.noise:.3f} -> {after.noise:.3f}, read {after.share:.3f} of rows")
    json.dump(p, open(a.out, "w"), indent=1)
    print(json.dumps(p, indent=1))


if __name__ == "__main__":
    main()

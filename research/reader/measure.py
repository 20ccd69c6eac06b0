#!/usr/bin/env python3
"""measure.py DUMP SCORES: how a reader's scores (train.py --score) read a
--reader-pairs dump: top-1 of the rows needing a skill (mentions aside)
by ski's ranking and re-ranked by the reader; the AUC of the best
candidate's confidence, reader score and both, for telling rows needing a
skill (with a right best candidate) from rows needing none. Development
only; needs numpy."""
import json, sys
import numpy as np

from fit import READ, logit, wanted


def auc(pos, neg):
    pos, neg = np.array(pos), np.array(neg)
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    ranks = np.empty(len(order)); ranks[order] = np.arange(1, len(order) + 1)
    return (ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def main(dump, scores, w=1.0):
    rows = [json.loads(l) for l in open(dump)]
    sc = {json.loads(l)["line"]: json.loads(l)["reader"] for l in open(scores)}
    top_rank = top_read = top_both = npos = 0
    gate = {"conf": ([], []), "reader": ([], []), "both": ([], [])}
    for r in rows:
        if r["category"] == "mention" or not r["cands"]:
            continue
        want = wanted(r)
        cands = r["cands"][:READ]
        rd = sc[r["line"]]
        conf = [c["confidence"] if c["confidence"] is not None else 0.0 for c in cands]
        both = [logit(conf[i]) + w * rd[i] for i in range(len(cands))]
        ir, iq, ib = 0, int(np.argmax(rd)), int(np.argmax(both))
        if want:
            npos += 1
            top_rank += cands[ir]["id"] in want
            top_read += cands[iq]["id"] in want
            top_both += cands[ib]["id"] in want
            if cands[ib]["id"] in want:
                gate["both"][0].append(both[ib])
            if cands[ir]["id"] in want:
                gate["conf"][0].append(conf[ir])
            if cands[iq]["id"] in want:
                gate["reader"][0].append(rd[iq])
        else:
            gate["conf"][1].append(conf[ir]); gate["reader"][1].append(rd[iq]); gate["both"][1].append(both[ib])
    print(f"{dump}: {npos} rows needing a skill; top-1 ranking {top_rank / npos:.3f}, reader {top_read / npos:.3f}, both {top_both / npos:.3f}")
    print("  AUC (right best vs no-skill best): " + ", ".join(f"{k} {auc(*v):.3f}" for k, v in gate.items()))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 1.0)

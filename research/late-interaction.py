#!/usr/bin/env python3
"""late-interaction.py — what late interaction (MaxSim over token vectors)
would add to ski's ranking and gate, measured on a `ski-eval --candidates`
dump: for each row, the five best candidates that are not mentions get
the mean, over the prompt's tokens, of each token's best cosine to the
tokens of the skill's "name: description" (bge-small-en-v1.5-q's last
hidden states, each token normalised). Prints how well each signal tells a
right first candidate from the first candidate of a row that needs no skill
(AUC), the top-1 of the five re-ranked by score + lambda x MaxSim, and the
share of right first candidates a gate keeps at <= 3 % of the no-skill rows
when it reads logit(confidence) + w x MaxSim. lambda and w are swept on
the same rows: an upper bound, not an out-of-fold number.

A development tool, never on the hook's path. Needs numpy, onnxruntime and
tokenizers (pip) and the model scripts/setup.sh installs:

  bin/ski-eval --tsv ../shared/eval/dev.tsv --root ../shared/skills-corpus --candidates /tmp/c.ndjson
  python3 research/late-interaction.py /tmp/c.ndjson
"""
import json
import sys

import numpy as np

from skimodel import Model, skill_parts


def skill_text(path):
    """The skill's "name: description"."""
    name, desc, _ = skill_parts(path)
    return (name + ": " + desc)[:1000]


def auc(pos, neg):
    pos, neg = np.array(pos)[:, None], np.array(neg)[None, :]
    return float((pos > neg).mean() + 0.5 * (pos == neg).mean())


def logit(p):
    p = min(max(p, 1e-4), 1 - 1e-4)
    return float(np.log(p / (1 - p)))


def main(dump):
    model = Model(max_tokens=256)

    def tokens(text):  # without [CLS] and [SEP]
        t = model.tokens(text)
        return t[1:-1] if len(t) > 2 else t

    rows = []
    with open(dump) as f:
        for line in f:
            r = json.loads(line)
            cands = [s for s in r["selections"] if not s.get("mention")][:5]
            if r["category"] == "mention" or not cands:
                continue
            q = tokens(r["prompt"])
            expected = {x for g in (r["expected"] or []) for x in g}
            rows.append({"needs": bool(expected), "cands": [{
                "conf": c.get("confidence") or 0.0, "score": c["score"], "cos": c["cosine"],
                "maxsim": float((q @ tokens(skill_text(c["path"])).T).max(axis=1).mean()),
                "right": c["id"] in expected} for c in cands]})
    right = [r["cands"][0] for r in rows if r["needs"] and r["cands"][0]["right"]]
    none = [r["cands"][0] for r in rows if not r["needs"]]
    print("%d rows: %d with a right first candidate, %d needing no skill" % (len(rows), len(right), len(none)))
    for f in ("conf", "score", "cos", "maxsim"):
        print("gate AUC, %-6s %.3f" % (f, auc([c[f] for c in right], [c[f] for c in none])))
    positives = [r for r in rows if r["needs"]]
    for lam in (0, 0.1, 0.2, 0.5, 1.0):
        ok = sum(max(r["cands"], key=lambda c: c["score"] + lam * c["maxsim"])["right"] for r in positives)
        print("re-ranked by score + %.1f x maxsim: top-1 %.1f%% of %d" % (lam, 100 * ok / len(positives), len(positives)))
    for w in (0, 2, 5, 10, 20, 40):
        pos = [logit(c["conf"]) + w * c["maxsim"] for c in right]
        neg = sorted((logit(c["conf"]) + w * c["maxsim"] for c in none), reverse=True)
        cut = neg[int(0.03 * len(neg))]
        print("gate logit(conf) + %2d x maxsim: AUC %.3f, right first candidates kept at <= 3%% no-skill rows %.1f%%"
              % (w, auc(pos, neg), 100 * np.mean([p > cut for p in pos])))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])

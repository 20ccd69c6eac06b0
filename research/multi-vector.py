#!/usr/bin/env python3
"""multi-vector.py — would several vectors per skill rank better than one?
On `ski-eval --candidates` dumps, each row's ten best candidates (mentions
aside) are re-ranked with their cosine replaced by the best of it and the
cosines of up to N extra texts of the skill: the sentences of its
description and the lines of its "when to use" section, each after its
name (bge-small-en-v1.5-q, the query with bge's prefix, as ski embeds
them). Prints top-1 for N = 0 (ski's ranking), 2, 5, 10 and 40.

A development tool, never on the hook's path; needs numpy, onnxruntime and
tokenizers (pip) and the model scripts/setup.sh installs:

  bin/ski-eval --tsv ../shared/eval/dev.tsv --root ../shared/skills-corpus --candidates /tmp/dev.ndjson
  python3 research/multi-vector.py /tmp/dev.ndjson [more dumps]
"""
import json
import re
import sys

import numpy as np

from skimodel import BGE_QUERY, Model, skill_parts


def extra_texts(path, n):
    """Up to n texts of the skill at path besides the one ski embeds."""
    name, desc, when = skill_parts(path)
    out = [name + ": " + x for x in re.split(r"(?<=[.!?])\s", desc) if len(x) > 15]
    for line in when:
        t = line.strip().lstrip("-*0123456789. ").strip()
        if len(t) > 15:
            out.append(name + ": " + t)
    return out[:n]


def main(dumps, ns=(0, 2, 5, 10, 40)):
    vec = Model(threads=2).vector
    for dump in dumps:
        right = {n: [] for n in ns}
        with open(dump) as f:
            for line in f:
                r = json.loads(line)
                cands = [s for s in r["selections"] if not s.get("mention")][:10]
                if r["category"] == "mention" or not r["expected"] or not cands:
                    continue
                expected = {x for g in r["expected"] for x in g}
                q = vec(BGE_QUERY + r["prompt"])
                for c in cands:
                    c["extra"] = [float(q @ vec(t)) for t in extra_texts(c["path"], max(ns))]
                for n in ns:
                    best = max(cands, key=lambda c: c["score"] - c["cosine"] + max([c["cosine"]] + c["extra"][:n]))
                    right[n].append(best["id"] in expected)
        print(dump)
        for n in ns:
            print("  up to %2d extra vectors: top-1 %.1f%% of %d" % (n, 100 * np.mean(right[n]), len(right[n])))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])

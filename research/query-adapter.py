#!/usr/bin/env python3
"""query-adapter.py — can a small model trained here on CPU re-weigh the
embedding space for our catalogs? A diagonal adapter (one weight per
dimension of bge-small's vectors, applied to prompt and skill vectors
before the cosine) is fitted by gradient descent on the training catalog
(softmax over each row's ten best candidates; L2 pull towards 1), then
each catalog's rows are re-ranked with it. Prints top-1 (rows needing a
skill, mentions aside; a row whose expected skill is not among the ten
counts as wrong) for the replica without an adapter and with three
strengths of pull.

A development tool, never on the hook's path; needs numpy, onnxruntime and
tokenizers (pip) and the model scripts/setup.sh installs; ~2 minutes:

  E=bin/ski-eval
  $E --tsv testdata/judge/train/prompts.tsv --root testdata/judge/train/skills --candidates /tmp/train.ndjson
  $E --tsv ../shared/eval/dev.tsv --root ../shared/skills-corpus --candidates /tmp/dev.ndjson
  $E --tsv testdata/judge/unseen/prompts.tsv --root testdata/judge/unseen/skills --candidates /tmp/unseen.ndjson
  python3 research/query-adapter.py /tmp/train.ndjson /tmp/dev.ndjson /tmp/unseen.ndjson
"""
import json
import sys

import numpy as np

from skimodel import BGE_QUERY, Model, skill_parts

vector = Model().vector


def skill_text(path):
    """What ski embeds for a skill: its name, description and "when to
    use" section (cut to 800 characters)."""
    name, desc, when = skill_parts(path)
    when = " ".join(" ".join(when).split())[:800]
    return name + ": " + desc + ((" " + when) if when else "")


def load(path):
    """Each row needing a skill (mentions aside): the prompt's vector, the
    vectors of its ten best candidates, the rest of their scores and which
    are right; None for a row whose expected skill is not among them."""
    rows = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r["category"] == "mention" or not r["expected"]:
                continue
            expected = {x for g in r["expected"] for x in g}
            cands = [s for s in r["selections"] if not s.get("mention")][:10]
            if not any(s["id"] in expected for s in cands):
                rows.append(None)
                continue
            rows.append((vector(BGE_QUERY + r["prompt"]),
                         np.array([vector(skill_text(s["path"])) for s in cands]),
                         np.array([s["score"] - s["cosine"] for s in cands]),
                         np.array([s["id"] in expected for s in cands])))
    return rows


def adapted(v, d):
    """Vectors v re-weighed by d, normalised again."""
    w = v * d
    return w / np.linalg.norm(w, axis=-1, keepdims=True)


def top1(rows, d):
    right = sum(r[3][np.argmax(r[2] + adapted(r[1], d) @ adapted(r[0], d))] for r in rows if r is not None)
    return 100 * right / len(rows)


def train(rows, pull, epochs=150, rate=2.0, sharpness=20):
    """A diagonal adapter fitted by gradient descent: softmax over each
    row's candidates of sharpness x their score, L2 pull towards 1."""
    d = np.ones(rows[0][0].shape[0] if rows[0] is not None else 384)
    data = [r for r in rows if r is not None]
    for _ in range(epochs):
        g = np.zeros_like(d)
        for q, docs, rest, right in data:
            nq = np.linalg.norm(q * d)
            nd = np.linalg.norm(docs * d, axis=1)
            num = (docs * (d * d * q)).sum(axis=1)
            c = num / (nd * nq)
            s = sharpness * (rest + c)
            p = np.exp(s - s.max())
            p /= p.sum()
            dc = sharpness * (p - right / right.sum())
            # d c_i / d d, from c_i = sum(d^2 q D_i) / (|d q| |d D_i|)
            dnum = 2 * d * q * docs
            dnq = d * q * q / nq
            dnd = d * docs * docs / nd[:, None]
            grad = (dnum * (nq * nd)[:, None] - num[:, None] * (dnq * nd[:, None] + dnd * nq)) / ((nq * nd) ** 2)[:, None]
            g += dc @ grad
        d -= rate * (g / len(data) + pull * (d - 1))
    return d


def main(train_dump, dev_dump, unseen_dump):
    tr, dev, un = load(train_dump), load(dev_dump), load(unseen_dump)
    ones = np.ones(384)
    print("no adapter: train %.1f dev %.1f unseen %.1f" % (top1(tr, ones), top1(dev, ones), top1(un, ones)))
    for pull, rate in ((0.01, 2.0), (0.001, 5.0), (0.0, 10.0)):
        d = train(tr, pull, rate=rate)
        print("adapter, pull %.3f: train %.1f dev %.1f unseen %.1f (mean |d - 1| %.3f)"
              % (pull, top1(tr, d), top1(dev, d), top1(un, d), np.abs(d - 1).mean()))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])

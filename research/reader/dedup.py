#!/usr/bin/env python3
"""dedup.py OUT TSV...: the near-duplicate prompts of ski's written
catalogs. Embeds every prompt of the given prompts.tsv files (and of
shared/eval/dev.tsv) with bge-small-en-v1.5-q as ski embeds queries (bge's
query prefix, [CLS] pooling, normalised) and lists, in OUT (TSV: file, line,
cosine, the prompt it is close to), every row whose cosine to an earlier row
of any given file, or to any dev.tsv row, is 0.9 or more: those rows are
dropped from the catalogs. Development only; numpy, onnxruntime, tokenizers."""
import os, sys
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from skimodel import BGE_QUERY, Model  # noqa: E402

LIMIT = 0.9


def rows(path):
    out = []
    for i, line in enumerate(open(path, encoding="utf-8")):
        cols = line.rstrip("\n").split("\t")
        if i == 0 or len(cols) < 3:
            continue
        out.append((path, i + 1, cols[1]))
    return out


def embed(model, texts):
    vecs = []
    for t in texts:
        ids = np.array([model.tok.encode(BGE_QUERY + t).ids], dtype=np.int64)
        v = model.run(ids)[0][0]
        vecs.append(v / np.linalg.norm(v))
    return np.array(vecs)


def main():
    out, files = sys.argv[1], sys.argv[2:]
    dev = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "eval", "dev.tsv")
    model = Model("bge-small-en-v1.5-q", threads=2)
    devrows = rows(dev)
    devvec = embed(model, [r[2] for r in devrows])
    mine = [r for f in files for r in rows(f)]
    vec = embed(model, [r[2] for r in mine])
    dropped = []
    kept = np.zeros(len(mine), bool)
    for i, r in enumerate(mine):
        near_dev = devvec @ vec[i]
        j = int(np.argmax(near_dev))
        if near_dev[j] >= LIMIT:
            dropped.append((r, float(near_dev[j]), "dev.tsv: " + devrows[j][2]))
            continue
        if kept.any():
            sims = vec[kept] @ vec[i]
            k = int(np.argmax(sims))
            if sims[k] >= LIMIT:
                other = [m for m, keep in zip(mine, kept) if keep][k]
                dropped.append((r, float(sims[k]), other[2]))
                continue
        kept[i] = True
    with open(out, "w", encoding="utf-8") as f:
        for (path, line, prompt), cos, near in dropped:
            f.write(f"{path}\t{line}\t{cos:.3f}\t{prompt}\t{near}\n")
    print(f"{len(mine)} prompts, {len(dropped)} near-duplicates (cosine >= {LIMIT}): "
          f"{sum(1 for d in dropped if d[2].startswith('dev.tsv'))} of a dev.tsv row", file=sys.stderr)


if __name__ == "__main__":
    main()

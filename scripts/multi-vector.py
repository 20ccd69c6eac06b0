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
  python3 scripts/multi-vector.py /tmp/dev.ndjson [more dumps]
"""
import json
import os
import re
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

MODEL = os.path.join(os.environ.get("XDG_DATA_HOME", os.path.expanduser("~/.local/share")),
                     "ski/models/bge-small-en-v1.5-q")
PREFIX = "Represent this sentence for searching relevant passages: "
WHEN = re.compile(r"(?i)when to (use|apply|invoke)|use this skill|use when|triggers?\b|use cases?")


class Vectors:
    """bge-small's [CLS] vectors of texts, each once."""

    def __init__(self):
        self.tok = Tokenizer.from_file(os.path.join(MODEL, "tokenizer.json"))
        self.tok.enable_truncation(512)
        so = ort.SessionOptions()
        so.intra_op_num_threads = 2
        self.sess = ort.InferenceSession(os.path.join(MODEL, "model.onnx"), so)
        self.inputs = [i.name for i in self.sess.get_inputs()]
        self.seen = {}

    def __call__(self, text):
        if text not in self.seen:
            ids = np.array([self.tok.encode(text).ids], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
            v = self.sess.run(None, {n: feed[n] for n in self.inputs})[0][0][0]
            self.seen[text] = v / np.linalg.norm(v)
        return self.seen[text]


def extra_texts(path, n):
    """Up to n texts of the skill at path besides the one ski embeds."""
    with open(path, encoding="utf-8", errors="replace") as f:
        s = f.read()
    m = re.match(r"---\n(.*?)\n---\n?(.*)", s, re.S)
    fm, body = (m.group(1), m.group(2)) if m else ("", s)
    name = re.search(r"^name:\s*(.*)$", fm, re.M)
    name = (name.group(1).strip() if name else "").replace("-", " ")
    desc = re.search(r"^description:\s*(.*(?:\n[ \t]+.*)*)", fm, re.M)
    desc = re.sub(r"\s+", " ", desc.group(1).strip().strip("\"'") if desc else "")
    out = [name + ": " + x for x in re.split(r"(?<=[.!?])\s", desc) if len(x) > 15]
    on, level = False, 0
    for line in body.split("\n"):
        h = re.match(r"^(#{1,6})\s+(.*)", line)
        if h:
            if on and len(h.group(1)) <= level:
                on = False
            if not on and WHEN.search(h.group(2)):
                on, level = True, len(h.group(1))
                continue
        if on:
            t = line.strip().lstrip("-*0123456789. ").strip()
            if len(t) > 15:
                out.append(name + ": " + t)
    return out[:n]


def main(dumps, ns=(0, 2, 5, 10, 40)):
    vec = Vectors()
    for dump in dumps:
        right = {n: [] for n in ns}
        with open(dump) as f:
            for line in f:
                r = json.loads(line)
                cands = [s for s in r["selections"] if not s.get("mention")][:10]
                if r["category"] == "mention" or not r["expected"] or not cands:
                    continue
                expected = {x for g in r["expected"] for x in g}
                q = vec(PREFIX + r["prompt"])
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

"""skimodel.py — what ski's Python experiment scripts share: an installed
model run through ONNX Runtime, and a SKILL.md read into its parts.
Development only; needs numpy, onnxruntime and tokenizers (pip)."""
import os
import re

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

DATA = os.environ.get("XDG_DATA_HOME", os.path.expanduser("~/.local/share"))
# bge's query prefix, as ski-embed puts it before a prompt.
BGE_QUERY = "Represent this sentence for searching relevant passages: "
WHEN = re.compile(r"(?i)when to (use|apply|invoke)|use this skill|use when|triggers?\b|use cases?")


class Model:
    """An installed model (scripts/setup.sh), each text's output kept."""

    def __init__(self, name="bge-small-en-v1.5-q", threads=1, max_tokens=512):
        folder = os.path.join(DATA, "ski", "models", name)
        self.tok = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        self.tok.enable_truncation(max_tokens)
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        self.sess = ort.InferenceSession(os.path.join(folder, "model.onnx"), so)
        self.inputs = [i.name for i in self.sess.get_inputs()]
        self.seen = {}

    def run(self, ids):
        """The last hidden states of a batch of token ids (n x length)."""
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        return self.sess.run(None, {n: feed[n] for n in self.inputs})[0]

    def tokens(self, text):
        """The text's token vectors, each normalised."""
        if text not in self.seen:
            out = self.run(np.array([self.tok.encode(text).ids], dtype=np.int64))[0]
            self.seen[text] = out / np.linalg.norm(out, axis=1, keepdims=True)
        return self.seen[text]

    def vector(self, text):
        """The text's [CLS] vector, normalised (bge's pooling)."""
        return self.tokens(text)[0]


def skill_parts(path):
    """A SKILL.md's name (hyphens as spaces), description (whitespace
    collapsed) and the lines of its "when to use" sections."""
    with open(path, encoding="utf-8", errors="replace") as f:
        s = f.read()
    m = re.match(r"---\n(.*?)\n---\n?(.*)", s, re.S)
    fm, body = (m.group(1), m.group(2)) if m else ("", s)
    name = re.search(r"^name:\s*(.*)$", fm, re.M)
    name = (name.group(1).strip() if name else "").replace("-", " ")
    desc = re.search(r"^description:\s*(.*(?:\n[ \t]+.*)*)", fm, re.M)
    desc = re.sub(r"\s+", " ", desc.group(1).strip().strip("\"'") if desc else "")
    when, on, level = [], False, 0
    for line in body.split("\n"):
        h = re.match(r"^(#{1,6})\s+(.*)", line)
        if h:
            if on and len(h.group(1)) <= level:
                on = False
            if not on and WHEN.search(h.group(2)):
                on, level = True, len(h.group(1))
                continue
        if on:
            when.append(line)
    return name, desc, when

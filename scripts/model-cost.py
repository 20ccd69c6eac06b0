#!/usr/bin/env python3
"""model-cost.py — what one forward pass of the installed models costs on
this machine (ONNX Runtime, one thread, as the embed server runs them), for
a query's length and for what a cross-encoder would run per prompt: one
or five (prompt + skill text) pairs of ~96–128 tokens. Prints the mean of
ten runs after three warm-ups.

A development tool; needs numpy and onnxruntime (pip) and the models
scripts/setup.sh installs:

  python3 scripts/model-cost.py
"""
import os
import time

import numpy as np
import onnxruntime as ort

DATA = os.environ.get("XDG_DATA_HOME", os.path.expanduser("~/.local/share"))

for model in ("all-MiniLM-L6-v2-q", "bge-small-en-v1.5-q"):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(os.path.join(DATA, "ski/models", model, "model.onnx"), so)
    names = [i.name for i in sess.get_inputs()]
    for n, length in ((1, 20), (1, 128), (5, 96), (5, 128)):
        ids = np.random.default_rng(0).integers(1000, 20000, (n, length)).astype(np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        feed = {k: feed[k] for k in names}
        for _ in range(3):
            sess.run(None, feed)
        start = time.perf_counter()
        for _ in range(10):
            sess.run(None, feed)
        print("%-20s %d x %3d tokens: %6.1f ms" % (model, n, length, (time.perf_counter() - start) * 100))

#!/usr/bin/env python3
"""model-cost.py — what one forward pass of the installed models costs on
this machine (ONNX Runtime, one thread, as the embed server runs them), for
a query's length and for what a cross-encoder would run per prompt: one
or five (prompt + skill text) pairs of ~96–128 tokens. Prints the mean of
ten runs after three warm-ups.

A development tool; needs numpy and onnxruntime (pip) and the models
scripts/setup.sh installs:

  python3 research/model-cost.py
"""
import time

import numpy as np

from skimodel import Model

for name in ("all-MiniLM-L6-v2-q", "bge-small-en-v1.5-q"):
    model = Model(name)
    for n, length in ((1, 20), (1, 128), (5, 96), (5, 128)):
        ids = np.random.default_rng(0).integers(1000, 20000, (n, length)).astype(np.int64)
        for _ in range(3):
            model.run(ids)
        start = time.perf_counter()
        for _ in range(10):
            model.run(ids)
        print("%-20s %d x %3d tokens: %6.1f ms" % (name, n, length, (time.perf_counter() - start) * 100))

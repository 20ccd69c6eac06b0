#!/usr/bin/env python3
"""soup.py A.onnx B.onnx --weight W --train DUMP --out DIR: a reader whose
weights are W·A + (1−W)·B, the weight average of two fp32 readers that
train.py made from the same base weights by the same recipe (on different
data, say), so that one graph, the size of either, carries what each
learned. Exported, checked against PyTorch, quantised and scored as
train.py does (its fixtures from DUMP's first rows, as train.py takes
them from its training dump). With W = 1 it gives A back; with
--a-embeddings A's embedding layer is kept whole, and W = 0 puts B's
layers and head on A's embeddings (two readers pair.py can join).
Development only: needs what train.py needs."""
import argparse, json, os, sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minilm import load_weights, tokenizer  # noqa: E402
from train import Reader, publish, reader_from  # noqa: E402


def soup(a, b, weight, a_embeddings=False):
    """The Reader holding weight·a + (1−weight)·b, two readers' weights
    of the same shape; with a_embeddings, a's embedding layer whole."""
    if a.keys() != b.keys():
        raise SystemExit(f"the readers differ in shape: {sorted(a.keys() ^ b.keys())[:4]}")
    layers = 1 + max(int(k.split(".")[3]) for k in a if k.startswith("bert.encoder.layer."))
    model = Reader(layers)
    mix = lambda k: a[k] if a_embeddings and k.startswith("bert.embeddings.") else weight * a[k] + (1 - weight) * b[k]
    load_weights(model, {k: mix(k) for k in a})
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", help="a fp32 reader graph (train.py's reader.onnx)")
    ap.add_argument("b", help="another, from the same base and recipe")
    ap.add_argument("--weight", type=float, required=True, help="A's share of the average (0..1)")
    ap.add_argument("--a-embeddings", action="store_true", help="keep A's embedding layer whole (with --weight 0: B's layers on A's embeddings, a pair for pair.py)")
    ap.add_argument("--train", required=True, help="the --reader-pairs dump the fixtures are drawn from")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", required=True)
    ap.add_argument("--score", nargs="*", default=[], help="--reader-pairs dumps to score (<out>/scores-<name>.ndjson)")
    args = ap.parse_args()
    if not 0 <= args.weight <= 1:
        raise SystemExit("--weight: want a share, 0 to 1")
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    os.makedirs(args.out, exist_ok=True)
    model = soup(reader_from(args.a), reader_from(args.b), args.weight, args.a_embeddings)
    model.eval()
    rows = [json.loads(l) for l in open(args.train, encoding="utf-8")]
    publish(model, tokenizer(), args.out, rows, args.score, args.threads, {"args": vars(args)})


if __name__ == "__main__":
    main()

"""Reference embeddings for ski's parity tests: Hugging Face `tokenizers` and
Python `onnxruntime` on the same files ski uses.

Reads one JSON request on stdin:
  {"model": PATH, "tokenizer": PATH, "pooling": "cls"|"mean",
   "max_tokens": N, "texts": [...], "vectors": true|false}
and writes {"ids": [[...]...], "vectors": [[...]...]} on stdout. The texts
arrive as they are fed to the model (any query prefix already added).
"""
import json
import sys

import numpy as np
from tokenizers import Tokenizer


def main():
    req = json.load(sys.stdin)
    tok = Tokenizer.from_file(req["tokenizer"])
    tok.no_padding()
    tok.enable_truncation(max_length=req["max_tokens"])
    encs = [tok.encode(t) for t in req["texts"]]
    out = {"ids": [e.ids for e in encs]}
    if req.get("vectors"):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        sess = ort.InferenceSession(req["model"], opts, providers=["CPUExecutionProvider"])
        vecs = []
        for e in encs:
            ids = np.array([e.ids], dtype=np.int64)
            mask = np.ones_like(ids)
            hidden = sess.run(["last_hidden_state"], {
                "input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0][0]
            v = hidden[0] if req["pooling"] == "cls" else hidden.mean(axis=0)
            vecs.append((v / np.linalg.norm(v)).tolist())
        out["vectors"] = vecs
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""biencoder.py: the other road to reading situations: fine-tune the
embedding model itself (bge-small-en-v1.5, the weights scripts/setup.sh
installs) on the training catalogs' prompts, contrastively (each prompt
against its expected skill, the other prompts' skills in the batch and
--negatives of ski's own wrong candidates for it; its top layers only, inputs cut to
--max-tokens, for CPU time), and measure what the prompts of
other catalogs gain in retrieval: top-1 and recall at 10 of the cosine of
a prompt (bge's query prefix) and each skill's "name: description
(keywords)" text, before and after. --export writes the result as the
shipped graph is (fp32 and int8) for standin.sh to measure through ski.
Fixed seeds. Development only."""
import argparse, json, os, random, re, sys, time

import numpy as np
import torch
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minilm import BGE_DIR, load_bert, sha256, tokenizer  # noqa: E402

PREFIX = "Represent this sentence for searching relevant passages: "


def skill_texts(root):
    """Each skill's text as ski's reader reads it, by folder name."""
    out = {}
    for sk in sorted(os.listdir(root)):
        t = open(os.path.join(root, sk, "SKILL.md"), encoding="utf-8").read()
        m = re.match(r"---\n(.*?)\n---\n", t, re.S)
        d = yaml.safe_load(m.group(1)) or {}
        name = str(d.get("name") or sk)
        text = re.sub(r"[-_]", " ", name) + ": " + str(d.get("description", ""))
        extra = [str(x) for k in ("keywords", "aliases", "tags") for x in (d.get(k) or [])]
        if extra:
            text += " (" + ", ".join(extra) + ")"
        out[sk] = text
    return out


class Encoder:
    def __init__(self, bert, tok, max_tokens=128):
        self.bert, self.tok, self.max = bert, tok, max_tokens

    def batch(self, texts):
        enc = [self.tok.encode(t).ids[: self.max] for t in texts]
        n = max(len(e) for e in enc)
        ids = torch.zeros((len(enc), n), dtype=torch.long)
        mask = torch.zeros((len(enc), n), dtype=torch.long)
        for i, e in enumerate(enc):
            ids[i, : len(e)] = torch.tensor(e)
            mask[i, : len(e)] = 1
        return ids, mask

    def __call__(self, texts):
        ids, mask = self.batch(texts)
        h = self.bert(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)).last_hidden_state[:, 0]
        return torch.nn.functional.normalize(h, dim=-1)


def retrieval(enc, dump, root, size=64):
    """top-1 and recall@10 of the cosine over a catalog's rows needing a
    skill (mentions aside)."""
    texts = skill_texts(root)
    ids = list(texts)
    with torch.no_grad():
        sv = torch.cat([enc([texts[i] for i in ids[k:k + size]]) for k in range(0, len(ids), size)])
        rows = [json.loads(l) for l in open(dump, encoding="utf-8")]
        rows = [r for r in rows if r["category"] != "mention" and r["expected"]]
        qv = torch.cat([enc([PREFIX + r["text"] for r in rows[k:k + size]]) for k in range(0, len(rows), size)])
    sims = (qv @ sv.T).numpy()
    top1 = rec = 0
    for i, r in enumerate(rows):
        want = {s for g in r["expected"] for s in g}
        order = np.argsort(-sims[i])
        top1 += ids[order[0]] in want
        rec += any(ids[j] in want for j in order[:10])
    return round(top1 / len(rows), 4), round(rec / len(rows), 4), len(rows)


class Hidden(torch.nn.Module):
    """The BERT as the shipped graph is: last_hidden_state out."""

    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state


def export(bert, tok, out):
    """model.onnx (fp32) and model-q.onnx (int8, made as the registry's) in out, inputs and
    output named as the shipped graph's; returns their sha256 and the
    largest difference of the fp32 graph's [CLS] from PyTorch's on one
    prompt (fails above 1e-4)."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic
    model = Hidden(bert).eval()  # a new module trains by default, and export restores its mode to bert
    enc = Encoder(bert, tok, 512)
    ids, mask = enc.batch([PREFIX + "my jest tests pass locally but time out in CI"])
    types = torch.zeros_like(ids)
    f32, q8 = os.path.join(out, "model.onnx"), os.path.join(out, "model-q.onnx")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    torch.onnx.export(model, (ids, mask, types), f32, input_names=names, output_names=["last_hidden_state"],
                      dynamic_axes={k: {0: "batch", 1: "tokens"} for k in names + ["last_hidden_state"]},
                      opset_version=17, dynamo=False)
    # per channel and in 7 bits, as the registry's int8 graph was made (its MatMul weights come out byte for byte)
    quantize_dynamic(f32, q8, weight_type=QuantType.QInt8, per_channel=True, reduce_range=True)
    with torch.no_grad():
        want = model(ids, mask, types)[:, 0].numpy()
    feed = {"input_ids": ids.numpy(), "attention_mask": mask.numpy(), "token_type_ids": types.numpy()}
    got = ort.InferenceSession(f32).run(None, feed)[0][:, 0]
    diff = float(np.abs(got - want).max())
    if diff > 1e-4:
        raise RuntimeError(f"export: fp32 graph differs from PyTorch by {diff}")
    return {"fp32_diff": diff, "sha256": {os.path.basename(f): sha256(f) for f in (f32, q8)}}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--train", nargs="+", required=True, help="DUMP=SKILLS_ROOT pairs: each training catalog's --reader-pairs dump (--top 20) and its skills")
    ap.add_argument("--eval", nargs="*", default=[], help="DUMP=SKILLS_ROOT pairs to measure")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--train-layers", type=int, default=2, help="fine-tune the top N of the 12 layers, the rest frozen (CPU time)")
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--negatives", type=int, default=1, help="of ski's wrong candidates for each prompt")
    ap.add_argument("--export", action="store_true", help="also write the fine-tuned model as model.onnx (fp32) and model-q.onnx (int8, quantised as the shipped file) in --out, the interface of the shipped bge graph")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    tok = tokenizer(BGE_DIR)
    bert = load_bert(12, BGE_DIR, 12)
    for name, p in bert.named_parameters():
        top = any(name.startswith(f"encoder.layer.{i}.") for i in range(12 - args.train_layers, 12))
        p.requires_grad = top
    enc = Encoder(bert, tok, args.max_tokens)
    report = {"before": {}, "after": {}}
    bert.eval()
    for spec in args.eval:
        dump, root = spec.split("=")
        report["before"][os.path.basename(dump)] = retrieval(enc, dump, root)
    print(json.dumps(report["before"]), file=sys.stderr)
    rng = random.Random(args.seed)
    samples = []
    for spec in args.train:
        dump, root = spec.split("=")
        texts = skill_texts(root)
        for line in open(dump, encoding="utf-8"):
            r = json.loads(line)
            if r["category"] == "mention" or not r["expected"]:
                continue
            want = [s for g in r["expected"] for s in g]
            negs = [c["id"] for c in r["cands"][:10] if c["id"] not in want]
            samples.append((PREFIX + r["text"], texts[want[0]], [texts[n] for n in rng.sample(negs, min(args.negatives, len(negs)))]))
    print(f"{len(samples)} training prompts", file=sys.stderr)
    opt = torch.optim.AdamW([p for p in bert.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.01)
    t0 = time.time()
    for epoch in range(args.epochs):
        rng.shuffle(samples)
        bert.train()
        for k in range(0, len(samples), args.batch):
            chunk = samples[k:k + args.batch]
            q = enc([s[0] for s in chunk])
            docs = [s[1] for s in chunk] + [n for s in chunk for n in s[2]]
            d = enc(docs)
            logits = 20.0 * q @ d.T
            loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(chunk)))
            opt.zero_grad()
            loss.backward()
            opt.step()
            if (k // args.batch + 1) % 20 == 0:
                print(f"  step {k // args.batch + 1}: loss {loss.item():.4f} ({time.time() - t0:.0f} s)", file=sys.stderr)
        print(f"epoch {epoch + 1} ({time.time() - t0:.0f} s)", file=sys.stderr)
    bert.eval()
    for spec in args.eval:
        dump, root = spec.split("=")
        report["after"][os.path.basename(dump)] = retrieval(enc, dump, root)
    report["train_seconds"] = round(time.time() - t0)
    os.makedirs(args.out, exist_ok=True)
    if args.export:
        report["export"] = export(bert, tok, args.out)
    with open(os.path.join(args.out, "biencoder.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report), file=sys.stderr)


if __name__ == "__main__":
    main()

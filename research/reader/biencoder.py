#!/usr/bin/env python3
"""biencoder.py: the other road to reading situations: fine-tune the
embedding model itself (bge-small-en-v1.5, the weights scripts/setup.sh
installs) on the training catalog's prompts, contrastively (each prompt
against its expected skill, the other prompts' skills in the batch and
--negatives of ski's own wrong candidates for it; its top layers only, inputs cut to
--max-tokens, for CPU time), and measure what the prompts of
other catalogs gain in retrieval: top-1 and recall at 10 of the cosine of
a prompt (bge's query prefix) and each skill's "name: description
(keywords)" text, before and after. Fixed seeds. Development only."""
import argparse, json, os, random, re, sys, time

import numpy as np
import torch
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minilm import BGE_DIR, load_bert  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

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


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--train", required=True, help="--reader-pairs dump of the training catalog (--top 20)")
    ap.add_argument("--train-root", required=True)
    ap.add_argument("--eval", nargs="*", default=[], help="DUMP=SKILLS_ROOT pairs to measure")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--train-layers", type=int, default=2, help="fine-tune the top N of the 12 layers, the rest frozen (CPU time)")
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--negatives", type=int, default=1, help="of ski's wrong candidates for each prompt")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    tok = Tokenizer.from_file(os.path.join(BGE_DIR, "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
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
    texts = skill_texts(args.train_root)
    rng = random.Random(args.seed)
    samples = []
    for line in open(args.train, encoding="utf-8"):
        r = json.loads(line)
        if r["category"] == "mention" or not r["expected"]:
            continue
        want = [s for g in r["expected"] for s in g]
        negs = [c["id"] for c in r["cands"][:10] if c["id"] not in want]
        samples.append((PREFIX + r["text"], texts[want[0]], [texts[n] for n in rng.sample(negs, min(args.negatives, len(negs)))]))
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
    with open(os.path.join(args.out, "biencoder.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report), file=sys.stderr)


if __name__ == "__main__":
    main()

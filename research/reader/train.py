#!/usr/bin/env python3
"""train.py: fine-tune ski's reader, a cross-encoder that reads a prompt and
a skill's text together and says how likely the prompt needs the skill,
from the all-MiniLM-L6-v2 weights scripts/setup.sh installs (its first
--layers layers, a linear head on the mean of the token vectors; with
--base bge, bge-small-en-v1.5's first layers, the same shape) or, with
--init, from a reader it made before, on the candidates ski's own ranking
gives the training catalog's prompts (`ski-eval --reader-pairs`).

Pairs: every row's ten best candidates (mentions aside; a right one is
labelled 1, the others 0) and its expected skills found below the ten.
Loss: each row's listwise loss plus the pairs' binary cross-entropy, over
the reader's logits or, with --residual (the shipped reader), over a
learned weight times the log-odds of the judge's confidence plus the
reader's logit: the reader learns what the judge gets wrong. Fixed seeds,
one thread per op order, no shuffling but a seeded one: a rerun on the same
machine gives the same weights, hence the same files (their sha256 is
printed).

Writes into --out: reader.onnx (fp32), reader-q.onnx (int8, dynamic
quantisation), fixtures.json (pairs with the PyTorch, fp32 ONNX and int8
ONNX scores), report.json. Fails when the fp32 ONNX graph and PyTorch
differ by more than 1e-4 on the fixtures. Development only: needs torch,
transformers, onnx, onnxruntime, tokenizers (research/README.md).
"""
import argparse, json, math, os, random, sys, time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit import JUDGED, READ, logit, wanted  # noqa: E402
from minilm import BGE_DIR, MODEL_DIR, batch, load_bert, load_weights, onnx_state, sha256, tokenizer  # noqa: E402


def judged(c):
    """The log-odds of the judge's confidence in candidate c (none: 0),
    clipped as ski's reader clips it (internal/reader)."""
    return logit(c["confidence"] if c.get("confidence") is not None else 0.0)


def load_pairs(path, fraction=1.0, seed=1, skill_fraction=1.0):
    """The rows of a --reader-pairs dump (with fraction < 1, that share of
    them, seeded; with skill_fraction < 1, the rows whose expected skills
    all lie in that share of the skills, seeded, and that share of the rows
    expecting none) and their (prompt text, skill text, label, row) pairs."""
    rows = [json.loads(l) for l in open(path, encoding="utf-8")]
    if fraction < 1:
        rng = random.Random(seed)
        rows = [r for r in rows if rng.random() < fraction]
    if skill_fraction < 1:
        rng = random.Random(seed)
        want = [wanted(r) for r in rows]
        kept = {s for s in sorted(set().union(*want)) if rng.random() < skill_fraction}
        rows = [r for r, w in zip(rows, want) if (w and w <= kept) or (not w and rng.random() < skill_fraction)]
    pairs, rows_kept = [], []
    for r in rows:
        if r["category"] == "mention":
            continue
        want = wanted(r)
        read = [c for c in r["cands"] if not c.get("mention")][:READ]
        k = len(rows_kept)
        rows_kept.append(r)
        for i, c in enumerate(read):
            pairs.append((r["text"], c["text"], 1.0 if c["id"] in want else 0.0, k, judged(c), i >= JUDGED))
        for c in r["cands"][READ:]:
            if c["id"] in want:
                pairs.append((r["text"], c["text"], 1.0, k, judged(c), True))
    return rows, pairs


def reader_from(path):
    """A fp32 reader graph's weights, by PyTorch name."""
    return onnx_state(path, ("bert.", "head."))


# The base checkpoints a reader may start from: the directory of the ONNX
# graph scripts/setup.sh installs and its number of layers. Both use
# the BERT uncased vocabulary and 384-wide layers, so a reader from either
# has the same shape and runs with the same tokenizer.
BASES = {"minilm": (MODEL_DIR, 6), "bge": (BGE_DIR, 12)}


class Reader(torch.nn.Module):
    def __init__(self, layers, base="minilm"):
        super().__init__()
        model_dir, total = BASES[base]
        self.bert = load_bert(layers, model_dir, total)
        self.head = torch.nn.Linear(384, 1)

    def forward(self, input_ids, attention_mask, token_type_ids):
        h = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
        # The mean of the token vectors, as the base model was trained to
        # pool them.
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        return self.head((h * m).sum(1) / m.sum(1)).squeeze(-1)


def train(args, tok, pairs):
    """Batches of whole rows (a prompt with all its pairs). The loss is the
    listwise one of each row with a right candidate (the softmax of its
    pairs' logits should put its weight on the right ones: re-ranking) plus,
    weighted by --pointwise, every pair's binary cross-entropy (a belief of
    its own: gating)."""
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    model = Reader(args.layers, args.base)
    if args.init:
        # A reader train.py made already, trained further (its own head).
        load_weights(model, reader_from(args.init))
    if args.freeze is not None:
        # The embeddings and the first --freeze layers (0: the embeddings
        # only) keep the weights they start with: readers trained so share
        # them, and only the layers above differ.
        for m in [model.bert.embeddings] + list(model.bert.encoder.layer[:args.freeze]):
            m.requires_grad_(False)
    # With --residual the loss reads judge·logit(judge's confidence) +
    # the reader's logit, judge a weight learned beside the reader: the
    # reader learns what the judge gets wrong, as ski combines them.
    judge_w = torch.nn.Parameter(torch.tensor(args.judge_init)) if args.residual else None
    # With --unjudged, a candidate below the judge's few (never rated: its
    # confidence reads 0) gets a learned constant in place of the judge's
    # term, starting where judge·logit(0) starts.
    unjudged = torch.nn.Parameter(torch.tensor(logit(0.0))) if args.residual and args.unjudged else None
    byrow = {}
    for p in pairs:
        byrow.setdefault(p[3], []).append(p)
    rows = list(byrow.values())
    params = [{"params": [w for w in model.parameters() if w.requires_grad]}]
    if judge_w is not None:
        params.append({"params": [judge_w] + ([unjudged] if unjudged is not None else []), "weight_decay": 0.0, "lr": args.lr * 100})
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    steps = args.epochs * math.ceil(len(rows) / args.batch)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, (steps - s) / steps))
    pos = sum(p[2] for p in pairs)
    bce = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor((len(pairs) - pos) / max(pos, 1) * args.pos_weight))
    rng = random.Random(args.seed)
    step = 0
    t0 = time.time()
    for epoch in range(args.epochs):
        rng.shuffle(rows)
        model.train()
        total = 0.0
        for i in range(0, len(rows), args.batch):
            chunk = rows[i:i + args.batch]
            flat = [p for r in chunk for p in r]
            ids, mask, types = batch(tok, [(p[0], p[1]) for p in flat])
            logits = model(torch.from_numpy(ids), torch.from_numpy(mask), torch.from_numpy(types))
            if judge_w is not None:
                term = judge_w * torch.tensor([p[4] for p in flat], dtype=torch.float32)
                if unjudged is not None:
                    term = torch.where(torch.tensor([p[5] for p in flat], dtype=torch.bool), unjudged, term)
                logits = logits + term
            y = torch.tensor([p[2] for p in flat], dtype=torch.float32)
            loss = args.pointwise * bce(logits, y)
            k, lists = 0, []
            for r in chunk:
                lg, yr = logits[k:k + len(r)], y[k:k + len(r)]
                k += len(r)
                if yr.sum() > 0:
                    lists.append(torch.logsumexp(lg, 0) - torch.logsumexp(lg[yr > 0], 0))
            if lists:
                loss = loss + torch.stack(lists).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            total += loss.item()
            if step % 50 == 0:
                print(f"  step {step}/{steps}: loss {total / (i // args.batch + 1):.4f} ({time.time() - t0:.0f} s)", file=sys.stderr)
        print(f"epoch {epoch + 1}: loss {total / math.ceil(len(rows) / args.batch):.4f} ({time.time() - t0:.0f} s)", file=sys.stderr)
    model.judge_weight = float(judge_w) if judge_w is not None else None
    model.unjudged = float(unjudged) if unjudged is not None else None
    return model


def ort_session(path, threads=1):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def ort_logits(sess, tok, prompt, skills, extra=None):
    """The logits of one prompt with its skills, in one batch: as ski's Go
    reader runs it (the quantised graph scales a run's inputs as a whole);
    extra adds inputs a graph has beyond BERT's."""
    ids, mask, types = batch(tok, [(prompt, s) for s in skills])
    feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types} | (extra or {})
    return [float(x) for x in sess.run(None, feed)[0]]


def export(model, tok, out, groups):
    """reader.onnx (fp32) and reader-q.onnx (int8), and fixtures.json: for
    each (prompt, skills) group, the logits of PyTorch and the fp32 graph,
    pair by pair, and of the int8 graph, the group in one batch. Fails when
    the fp32 graph and PyTorch differ by more than 1e-4."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    model.eval()
    ids, mask, types = batch(tok, [(groups[0][0], s) for s in groups[0][1][:4]])
    f32, q8 = os.path.join(out, "reader.onnx"), os.path.join(out, "reader-q.onnx")
    torch.onnx.export(model, (torch.from_numpy(ids), torch.from_numpy(mask), torch.from_numpy(types)), f32,
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
                      dynamic_axes={k: {0: "batch", 1: "tokens"} for k in ("input_ids", "attention_mask", "token_type_ids")} | {"logits": {0: "batch"}},
                      opset_version=17, dynamo=False)
    quantize_dynamic(f32, q8, weight_type=QuantType.QInt8)
    s32, s8 = ort_session(f32), ort_session(q8)
    res = {"groups": []}
    diff = 0.0
    for prompt, skills in groups:
        g = {"prompt": prompt, "skills": skills, "torch": [], "fp32": [], "int8": ort_logits(s8, tok, prompt, skills)}
        for s in skills:
            g["fp32"].extend(ort_logits(s32, tok, prompt, [s]))
            ids, mask, types = batch(tok, [(prompt, s)])
            with torch.no_grad():
                g["torch"].append(float(model(torch.from_numpy(ids), torch.from_numpy(mask), torch.from_numpy(types))[0]))
        diff = max(diff, max(abs(a - b) for a, b in zip(g["torch"], g["fp32"])))
        res["groups"].append(g)
    res["max_diff_torch_fp32"] = diff
    with open(os.path.join(out, "fixtures.json"), "w") as fh:
        json.dump(res, fh, indent=1)
    if diff > 1e-4:
        raise SystemExit(f"fp32 ONNX differs from PyTorch by {diff:.2e} (> 1e-4)")
    return f32, q8


def fixture_groups(rows):
    """The fixtures' groups: the first twelve rows the reader would read,
    each prompt with its ten candidates."""
    groups = []
    for r in rows:
        read = [c["text"] for c in r["cands"] if not c.get("mention")][:READ]
        if r["category"] != "mention" and read:
            groups.append((r["text"], read))
        if len(groups) == 12:
            break
    return groups


def score_dumps(f32, q8, tok, dumps, out, threads):
    """Scores each --reader-pairs dump's candidates with both graphs into
    <out>/scores-<name>.ndjson; returns, by dump, the share of prompts
    whose best candidate the int8 graph and the fp32 graph agree on."""
    s32, s8 = ort_session(f32, threads), ort_session(q8, threads)
    agreement = {}
    for dump in dumps:
        name = os.path.splitext(os.path.basename(dump))[0]
        drows = [json.loads(l) for l in open(dump, encoding="utf-8")]
        agree = total = 0
        with open(os.path.join(out, f"scores-{name}.ndjson"), "w") as fh:
            for r in drows:
                skills = [c["text"] for c in r["cands"][:READ]]
                q = ort_logits(s8, tok, r["text"], skills) if skills else []
                f = ort_logits(s32, tok, r["text"], skills) if skills else []
                if skills:
                    total += 1
                    agree += int(np.argmax(q) == np.argmax(f))
                fh.write(json.dumps({"line": r["line"], "reader": [round(x, 4) for x in q], "fp32": [round(x, 4) for x in f]}) + "\n")
        agreement[name] = round(agree / max(total, 1), 4)
    return agreement


def publish(model, tok, out, rows, dumps, threads, report):
    """Exports model into out (graphs, fixtures from rows), scores dumps
    with it and writes report.json, adding the graphs' sha256 and the int8
    graph's agreement with fp32 to report."""
    f32, q8 = export(model, tok, out, fixture_groups(rows))
    report["sha256"] = {"reader.onnx": sha256(f32), "reader-q.onnx": sha256(q8)}
    if dumps:
        report["int8_top1_agrees_with_fp32"] = score_dumps(f32, q8, tok, dumps, out, threads)
    with open(os.path.join(out, "report.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    print(json.dumps(report["sha256"]), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", required=True, help="--reader-pairs dump of the training catalog")
    ap.add_argument("--fraction", type=float, default=1.0, help="train on this share of the training rows (a learning curve)")
    ap.add_argument("--skill-fraction", type=float, default=1.0, help="train on the rows of this share of the training skills, and that share of the rows needing none (a learning curve over skills)")
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--base", choices=sorted(BASES), default="minilm", help="the checkpoint whose first --layers layers the reader starts from (without --init)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=4, help="rows (prompts with all their pairs) per step")
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--pos-weight", type=float, default=0.5, help="in the pointwise loss, the positives' weight as a share of the negatives'")
    ap.add_argument("--pointwise", type=float, default=0.5, help="the pointwise loss's weight beside the listwise one")
    ap.add_argument("--residual", action="store_true", help="train the reader beside the judge's confidence (its logit, weighted by a learned value), not alone")
    ap.add_argument("--unjudged", action="store_true", help="with --residual: candidates below the judge's few get a learned constant, not the judge's term at confidence 0")
    ap.add_argument("--init", help="start from this fp32 reader graph (train.py's reader.onnx), not the base weights")
    ap.add_argument("--freeze", type=int, help="keep the embeddings and the first this many layers as they start (0: the embeddings only; unset: train them all)")
    ap.add_argument("--judge-init", type=float, default=1.0, help="with --residual: the judge weight's starting value (a reader given to --init learned one: its report.json)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", required=True)
    ap.add_argument("--score", nargs="*", default=[], help="--reader-pairs dumps to score with the trained reader (NDJSON beside each: <out>/scores-<name>.ndjson)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    os.makedirs(args.out, exist_ok=True)
    tok = tokenizer()
    rows, pairs = load_pairs(args.train, args.fraction, args.seed, args.skill_fraction)
    print(f"{len(rows)} rows, {len(pairs)} pairs, {int(sum(p[2] for p in pairs))} positive", file=sys.stderr)
    t0 = time.time()
    model = train(args, tok, pairs)
    report = {"args": vars(args), "rows": len(rows), "pairs": len(pairs), "train_seconds": round(time.time() - t0), "judge_weight": model.judge_weight, "unjudged": model.unjudged}
    publish(model, tok, args.out, rows, args.score, args.threads, report)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""ranking-weights.py DUMP: the bge models' BM25 weights fitted on the
training catalog. DUMP is `ski-eval --candidates` of the training prompts
ranked without the judge with the current weights and --top 50; each
candidate's score is taken apart (cosine, text BM25 and body BM25 from its
"why", the rest as it is) and put together again for every point of a grid
of lexical_weight (the skill's text) × body_weight (its whole body); the
mean reciprocal rank of each row's first expected skill among the ten best
(mentions aside) ranks the points. Prints the grid, best first. From the
repository root after scripts/setup.sh:

  bin/ski-eval --tsv testdata/judge/train/prompts.tsv --root testdata/judge/train/skills \\
    --no-judge --top 50 --candidates /tmp/c50.ndjson
  research/ranking-weights.py /tmp/c50.ndjson [current lexical weight] [current body weight]
"""
import json, re, sys

LEX = [0.004, 0.008, 0.012, 0.016, 0.020, 0.024, 0.032]
BODY = [0.006, 0.009, 0.012, 0.016, 0.020, 0.024, 0.032]


def parts(c, lex0, body0):
    text = body = 0.0
    for w in c["why"]:
        m = re.match(r"(body )?bm25 \+([0-9.]+)", w)
        if m:
            if m.group(1):
                body = float(m.group(2)) / body0
            else:
                text = float(m.group(2)) / lex0
    rest = c["score"] - c["cosine"] - c["lexical"]
    return c["cosine"], text, body, rest


def main():
    dump = sys.argv[1]
    lex0 = float(sys.argv[2]) if len(sys.argv) > 2 else 0.012
    body0 = float(sys.argv[3]) if len(sys.argv) > 3 else 0.012
    rows = []
    for line in open(dump):
        r = json.loads(line)
        if r["category"] == "mention" or not r["expected"]:
            continue
        want = {s for g in r["expected"] for s in g}
        rows.append((want, [(s["id"], parts(s, lex0, body0)) for s in r["selections"]]))
    out = []
    for lex in LEX:
        for body in BODY:
            rr = top1 = 0.0
            for want, cands in rows:
                scored = sorted(cands, key=lambda c: -(c[1][0] + lex * c[1][1] + body * c[1][2] + c[1][3]))
                for k, (cid, _) in enumerate(scored[:10]):
                    if cid in want:
                        rr += 1 / (k + 1)
                        top1 += k == 0
                        break
            out.append((rr / len(rows), top1 / len(rows), lex, body))
    print(f"{len(rows)} rows needing a skill")
    print("| lexical / body weight | train MRR | train top-1 |")
    print("| --- | --- | --- |")
    for m, t, lex, body in sorted(out, reverse=True):
        print(f"| {lex} / {body} | {m:.3f} | {100 * t:.1f} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""pair.py LONG SHORT OUT: one reader graph holding two readers that share
their embeddings: the embedding layer once, then an If on a boolean input
`short` that runs SHORT's layers and head (true) or LONG's (false). LONG
and SHORT are graphs train.py made (both fp32 or both int8, quantised
apart: ONNX Runtime's quantiser leaves an If's branches in fp32) whose
embedding tensors are equal, as when one reader's layers were put on the
other's embeddings. Fails when a route's logits differ from its source
graph's by more than 1e-5 on the fixture pairs of --fixtures (and of
--short-fixtures; they are equal here). With --short-fixtures (SHORT's
fixtures.json) it writes the pair's fixtures (--write-fixtures): LONG's
groups read long ("short": false) and SHORT's read short (true), each
with its source's logits, what ski's Go reader is checked against.
Development only: needs what train.py needs."""
import argparse, json, os, sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minilm import tokenizer  # noqa: E402
from train import ort_logits, ort_session  # noqa: E402

EMBEDDED = "/bert/embeddings/LayerNorm/LayerNormalization_output_0"  # the embedding layer's output


def split(graph):
    """graph's nodes that compute the embedding layer, and the others."""
    made_by = {o: n for n in graph.node for o in n.output}
    need, todo = set(), [EMBEDDED]
    while todo:
        n = made_by.get(todo.pop())
        if n is not None and id(n) not in need:
            need.add(id(n))
            todo.extend(n.input)
    if not need:
        raise SystemExit(f"{graph.name}: no tensor {EMBEDDED}")
    return [n for n in graph.node if id(n) in need], [n for n in graph.node if id(n) not in need]


def branch(nodes, inits, shared, prefix):
    """A graph of nodes (their tensors and weights renamed with prefix, the
    shared ones and the outer graph's inputs kept) whose output is its
    logits, renamed prefix+"out", and its weights, for the outer graph to
    hold: weights kept inside a branch cost ONNX Runtime about 14 MB more
    in a process than the same weights held outside (measured, not
    explained)."""
    local = {o for n in nodes for o in n.output} | {k for n in nodes for k in n.input if k in inits and k not in shared}
    name = lambda x: prefix + x if x in local else x
    out = []
    for n in nodes:
        m = onnx.NodeProto()
        m.CopyFrom(n)
        m.name = prefix + n.name
        m.input[:] = [name(x) for x in n.input]
        m.output[:] = [name(x) for x in n.output]
        out.append(m)
    out.append(helper.make_node("Identity", [prefix + "logits"], [prefix + "out"]))
    weights = []
    for k in sorted(local & inits.keys()):
        t = onnx.TensorProto()
        t.CopyFrom(inits[k])
        t.name = prefix + k
        weights.append(t)
    return helper.make_graph(out, prefix.strip("/"), [], [helper.make_tensor_value_info(prefix + "out", TensorProto.FLOAT, ["batch"])]), weights


def build(long, short):
    """The paired model of two loaded graphs."""
    embed, rest_long = split(long.graph)
    _, rest_short = split(short.graph)
    inits_long = {i.name: i for i in long.graph.initializer}
    inits_short = {i.name: i for i in short.graph.initializer}
    shared = {x for n in embed for x in n.input if x in inits_long}
    for k in sorted(shared):
        if k not in inits_short or not np.array_equal(numpy_helper.to_array(inits_long[k]), numpy_helper.to_array(inits_short[k])):
            raise SystemExit(f"the readers' embeddings differ: {k}")
    then_graph, then_weights = branch(rest_short, inits_short, shared, "short/")
    else_graph, else_weights = branch(rest_long, inits_long, shared, "long/")
    route = helper.make_node("If", ["short"], ["logits"], name="route", then_branch=then_graph, else_branch=else_graph)
    inputs = list(long.graph.input) + [helper.make_tensor_value_info("short", TensorProto.BOOL, [])]
    graph = helper.make_graph(embed + [route], "reader_pair", inputs, list(long.graph.output), [inits_long[k] for k in sorted(shared)] + then_weights + else_weights)
    model = helper.make_model(graph, opset_imports=long.opset_import)
    model.ir_version = long.ir_version
    onnx.checker.check_model(model)
    return model


def check(out, long, short, fixtures):
    """The largest difference between a route's logits and its source
    graph's, over the groups of the fixtures files (each in one batch)."""
    pair, sources = ort_session(out), {False: ort_session(long), True: ort_session(short)}
    tok, worst = tokenizer(), 0.0
    groups = [g for path in fixtures for g in json.load(open(path, encoding="utf-8"))["groups"]]
    for g in groups:
        for flag, source in sources.items():
            got = ort_logits(pair, tok, g["prompt"], g["skills"], {"short": np.array(flag)})
            want = ort_logits(source, tok, g["prompt"], g["skills"])
            worst = max(worst, max(abs(a - b) for a, b in zip(got, want)))
    return worst


def pair_fixtures(long_fx, short_fx):
    """The pair's fixtures: each source's groups, marked with its route."""
    groups, diff = [], 0.0
    for path, flag in ((long_fx, False), (short_fx, True)):
        fx = json.load(open(path, encoding="utf-8"))
        groups += [{"short": flag} | g for g in fx["groups"]]
        diff = max(diff, fx["max_diff_torch_fp32"])
    return {"groups": groups, "max_diff_torch_fp32": diff}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("long", help="the reader for prompts of the length limit or more (else branch)")
    ap.add_argument("short", help="the reader for shorter prompts (then branch)")
    ap.add_argument("out")
    ap.add_argument("--fixtures", required=True, help="a fixtures.json of train.py: the pairs the routes are checked on")
    ap.add_argument("--short-fixtures", help="SHORT's fixtures.json: with --write-fixtures, the pair's fixtures are written")
    ap.add_argument("--write-fixtures", help="where the pair's fixtures go (needs --short-fixtures)")
    args = ap.parse_args()
    if bool(args.short_fixtures) != bool(args.write_fixtures):
        ap.error("--short-fixtures and --write-fixtures go together")
    onnx.save(build(onnx.load(args.long), onnx.load(args.short)), args.out)
    worst = check(args.out, args.long, args.short, [args.fixtures] + ([args.short_fixtures] if args.short_fixtures else []))
    print(json.dumps({"out": args.out, "bytes": os.path.getsize(args.out), "max_diff": worst}))
    if worst > 1e-5:
        raise SystemExit(f"a route differs from its source graph by {worst:.2e}")
    if args.write_fixtures:
        with open(args.write_fixtures, "w", encoding="utf-8") as f:
            json.dump(pair_fixtures(args.fixtures, args.short_fixtures), f, indent=1)


if __name__ == "__main__":
    main()

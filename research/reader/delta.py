#!/usr/bin/env python3
"""delta.py REGISTRY.onnx FINETUNED.onnx OUT.onnx: the registry's int8
bge-small graph with the layers biencoder.py trained taken from its
exported int8 graph (--first: the first trained layer; the layers below
it and the embeddings stay the registry's, byte for byte). Prints the
delta's size: the bytes of the initializers replaced, what a set-up step
would have to write into the registry's file. The two graphs name their
weight matrices differently (onnx::MatMul_N); they are matched by the
node that reads them, the other weights by name. Development only."""
import argparse, os, re, sys

import onnx


def weight_names(model):
    """Each MatMulInteger node's weight initializer base name (without
    _quantized), by the node's layer path (/encoder/layer.K/...)."""
    init = {i.name for i in model.graph.initializer}
    out = {}
    for n in model.graph.node:
        if n.op_type != "MatMulInteger":
            continue
        for x in n.input:
            if x in init and x.endswith("_quantized"):
                out[re.sub(r"^/bert", "", n.name)] = x[: -len("_quantized")]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("registry"); ap.add_argument("finetuned"); ap.add_argument("out")
    ap.add_argument("--first", type=int, default=8, help="the first layer biencoder.py trained (12 - --train-layers)")
    args = ap.parse_args()
    reg, fin = onnx.load(args.registry), onnx.load(args.finetuned)
    ri = {i.name: i for i in reg.graph.initializer}
    fi = {i.name: i for i in fin.graph.initializer}
    layer = re.compile(r"encoder\.layer\.(\d+)\.|/encoder/layer\.(\d+)/")

    def trained(name):
        m = layer.search(name)
        return m is not None and int(m.group(1) or m.group(2)) >= args.first

    pairs = []  # (registry initializer, fine-tuned initializer)
    rw, fw = weight_names(reg), weight_names(fin)
    for node, base in rw.items():
        if trained(node):
            pairs += [(base + s, fw[node] + s) for s in ("_quantized", "_scale", "_zero_point")]
    for name in ri:
        if trained(name) and not name.startswith("onnx::"):
            pairs.append((name, "bert." + name))
    size = 0
    for r, f in pairs:
        a, b = ri[r], fi[f]
        if a.data_type != b.data_type or list(a.dims) != list(b.dims):
            sys.exit(f"delta.py: {r} and {f} differ in type or shape")
        a.CopyFrom(onnx.numpy_helper.from_array(onnx.numpy_helper.to_array(b), name=r))
        size += len(a.raw_data)
    onnx.save(reg, args.out)
    print(f"{len(pairs)} initializers replaced, {size} bytes ({size / 1e6:.1f} MB); {args.out}: {os.path.getsize(args.out)} bytes")


if __name__ == "__main__":
    main()

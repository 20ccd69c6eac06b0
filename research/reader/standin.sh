#!/usr/bin/env bash
# standin.sh MODEL.onnx DIR: lets ski-eval embed with MODEL.onnx (a fine-tuned
# bge-small graph, biencoder.py --export's model-q.onnx) in place of the
# installed bge-small-en-v1.5-q, without touching the installed models:
# DIR/models holds links to every installed model, the stand-in under
# bge-small-en-v1.5-q; DIR/ski-eval is built from a scratch worktree of HEAD
# whose model table gives the stand-in's size (the loader checks it).
# Then:
#   SKI_MODEL_DIR=DIR/models XDG_CACHE_HOME=DIR/cache DIR/ski-eval --tsv … --root …
# Development only.
set -euo pipefail
[ $# = 2 ] || { echo "usage: standin.sh MODEL.onnx DIR" >&2; exit 2; }
model=$(readlink -f "$1")
mkdir -p "$2/models/bge-small-en-v1.5-q" "$2/cache"
out=$(readlink -f "$2")
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
installed=${SKI_MODEL_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/ski/models}
for d in "$installed"/*/; do
	id=$(basename "$d")
	[ "$id" = bge-small-en-v1.5-q ] || ln -sfn "$(readlink -f "$d")" "$out/models/$id"
done
ln -sf "$model" "$out/models/bge-small-en-v1.5-q/model.onnx"
cp "$installed/bge-small-en-v1.5-q/tokenizer.json" "$out/models/bge-small-en-v1.5-q/"

wt=$(mktemp -d)
trap 'git -C "$repo" worktree remove --force "$wt"' EXIT
git -C "$repo" worktree add -q --detach "$wt" HEAD
size=$(stat -c %s "$model")
want=$(sed -n '/ID: "bge-small-en-v1.5-q"/,/Files:/s/.*", \([0-9]*\), "onnx\/model_quantized.onnx".*/\1/p' "$wt/internal/embed/models.go")
[ -n "$want" ] || { echo "standin.sh: bge-small-en-v1.5-q's size not found in internal/embed/models.go" >&2; exit 1; }
sed -i "s/\", $want, \"onnx\/model_quantized.onnx\"/\", $size, \"onnx\/model_quantized.onnx\"/" "$wt/internal/embed/models.go"
mkdir -p "$wt/.cache" && cp -r "$repo/.cache/lib" "$wt/.cache/"
(cd "$wt" && CGO_ENABLED=1 go build -trimpath \
	-ldflags "-X github.com/skill-inject/ski/internal/onnx.Tokenizers=$(sha256sum .cache/lib/libtokenizers.a | cut -d' ' -f1)" \
	-o "$out/ski-eval" ./cmd/ski-eval)
echo "SKI_MODEL_DIR=$out/models XDG_CACHE_HOME=$out/cache $out/ski-eval"

#!/usr/bin/env bash
# quality-signals.sh — what each of the judge's signals pays: for each set of
# features, fit the judge on testdata/judge/train, fit the bands on
# shared/eval/dev.tsv by 5-fold cross-validation grouped by skill and print
# the out-of-fold numbers, then score the unseen catalog
# (testdata/judge/unseen) with the bands fitted on every dev row. Prints one
# markdown table row per set (docs/quality.md). Run after scripts/setup.sh:
#
#   research/quality-signals.sh [model]
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
shared=${SKI_SHARED:-$(cd .. && pwd)/shared}
model=${1:-bge-small-en-v1.5-q}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

E=(bin/ski-eval --model "$model")
dev=(--tsv "$shared/eval/dev.tsv" --root "$shared/skills-corpus" --index "$tmp/dev.skv")
unseen=(--tsv testdata/judge/unseen/prompts.tsv --root testdata/judge/unseen/skills --index "$tmp/unseen.skv")
train=(--tsv testdata/judge/train/prompts.tsv --root testdata/judge/train/skills --index "$tmp/train.skv")

# numbers reads a ski-eval --json report (plain or --folds) and prints the
# columns of the table.
numbers() {
	python3 -c '
import json, sys
r = json.load(sys.stdin)
r = r.get("out_of_fold", r)
o, c = r["overall"], r["categories"]
pct = lambda x: "%.1f" % (100 * x)
cols = [pct(o["top1"]), pct(o["gated_recall"]), pct(o["reached_recall"]), pct(c["negative"]["false_injection"]),
        pct(o["suggestion_noise"]), pct(c["near-miss"]["right"]), pct(c["mention"]["right"]), "%.0f" % o["tokens_mean"]]
print(" | ".join(cols))'
}

# fitted turns the "fitted" line of a --folds report into ski-eval flags.
fitted() {
	python3 -c '
import json, re, sys
f = json.load(sys.stdin)["fitted"]
flags = {"inject_confidence": "--inject-confidence", "suggest_confidence": "--suggest-confidence",
         "inject_similarity": "--inject-similarity", "min_similarity": "--min-similarity", "score_margin": "--score-margin"}
print(" ".join("%s %s" % (flags[k], v) for k, v in re.findall(r"(\w+) ([0-9.]+)", f)))'
}

echo "| signals | dev top-1 | dev injected | dev reached | dev FP neg | dev noise | dev near-miss | dev mention | dev tokens | unseen top-1 | unseen injected | unseen reached | unseen FP neg | unseen noise | unseen near-miss | unseen mention | unseen tokens |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for set in "score, no judge:-" "relative:relative" "relative, gaps:relative,gap_top,gap_next,inverse_rank" \
	"relative, gaps, lexical:relative,gap_top,gap_next,inverse_rank,lexical,no_lexical" \
	"all (the judge):relative,gap_top,gap_next,inverse_rank,lexical,no_lexical,small_edit,intent"; do
	name=${set%%:*} features=${set#*:}
	if [ "$features" = - ]; then
		judge=(--no-judge)
	else
		"${E[@]}" "${train[@]}" --train-judge "$tmp/judge.json" --judge-features "$features" >/dev/null 2>&1
		judge=(--judge "$tmp/judge.json")
	fi
	"${E[@]}" "${dev[@]}" "${judge[@]}" --folds 5 --json 2>/dev/null >"$tmp/dev.json"
	# shellcheck disable=SC2207
	values=($(fitted <"$tmp/dev.json"))
	"${E[@]}" "${unseen[@]}" "${judge[@]}" "${values[@]}" --json 2>/dev/null >"$tmp/unseen.json"
	echo "| $name | $(numbers <"$tmp/dev.json") | $(numbers <"$tmp/unseen.json") |"
done

#!/usr/bin/env bash
# test-tools.sh — the reference pipeline the parity tests compare ski with:
# a Python venv with Hugging Face tokenizers and onnxruntime from PyPI, at
# the versions ski's own pieces use. Test tooling only; ski never runs it.
# Prints the venv's python path on stdout. Idempotent.
set -euo pipefail
cache=${SKI_SETUP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ski-setup}
venv=$cache/venv-reference
. "$(dirname -- "${BASH_SOURCE[0]}")/tool-caches.sh" "$cache"
pins="onnxruntime==1.24.3 tokenizers==0.22.0 numpy==2.4.6"
if ! [ -x "$venv/bin/python" ] || [ "$(cat "$venv/.pins" 2>/dev/null)" != "$pins" ]; then
	echo "test-tools: creating $venv ($pins)" >&2
	rm -rf "$venv"
	python3 -m venv "$venv"
	# shellcheck disable=SC2086
	"$venv/bin/pip" install --quiet --disable-pip-version-check $pins
	echo "$pins" >"$venv/.pins"
fi
echo "$venv/bin/python"

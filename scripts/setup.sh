#!/usr/bin/env bash
# setup.sh — build ski's stages into bin/. Idempotent; safe to run again.
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null || { echo "setup: Go is required (https://go.dev/dl/)" >&2; exit 1; }
mkdir -p bin
go build -trimpath -o bin/ ./cmd/...
echo "setup: built $(ls bin | tr '\n' ' ')into bin/" >&2

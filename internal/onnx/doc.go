// Package onnx is ski's neural embedder: Hugging Face tokenizers (through
// github.com/daulet/tokenizers) and ONNX Runtime (through
// github.com/yalue/onnxruntime_go) running small sentence-embedding models.
// Importing it registers its models with package embed.
//
// It needs cgo, libtokenizers.a at link time (scripts/setup.sh builds it
// into .cache/lib) and libonnxruntime.so at run time. Build with the tag
// ski_lexical_only to leave it out.
package onnx

// Tokenizers is the sha256 of the libtokenizers.a this binary links,
// stamped by scripts/setup.sh: go build does not see the library, and a
// binary built with another one must be another build.
var Tokenizers string

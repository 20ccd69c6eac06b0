//go:build !ski_lexical_only

package onnx

import (
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/reader"
)

func init() {
	embed.Register("onnx", Open, Check)
	reader.Register(func(env embed.Env) (reader.Model, error) { return OpenReader(reader.Files(), env, readerThreads) })
}

// readerThreads is how many threads one reading uses: the prompt's stages
// wait for it, so both cores may work on it.
const readerThreads = 2

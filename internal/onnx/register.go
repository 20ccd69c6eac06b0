//go:build !ski_lexical_only

package onnx

import (
	"github.com/skill-inject/ski/internal/embed"
	"github.com/skill-inject/ski/internal/reader"
)

func init() {
	embed.Register("onnx", Open, Check)
	reader.Register(func(env embed.Env) (reader.Model, error) {
		r, err := OpenReader(reader.Files(), env, readerThreads)
		if err != nil {
			return nil, err // not a nil *Reader in a non-nil Model
		}
		return r, nil
	})
}

// readerThreads is how many threads one reading uses: the prompt's stages
// wait for it, so both cores may work on it.
const readerThreads = 2

//go:build !ski_lexical_only

package onnx

import "github.com/skill-inject/ski/internal/embed"

func init() { embed.Register("onnx", Open, Check) }

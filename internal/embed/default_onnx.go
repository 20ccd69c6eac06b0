//go:build !ski_lexical_only

package embed

const defaultModel = "bge-small-en-v1.5-q"

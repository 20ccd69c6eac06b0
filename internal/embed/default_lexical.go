//go:build ski_lexical_only

package embed

const defaultModel = LexicalID

//go:build !amd64

package quant

// dot8 is the dot product of q and b's int8s.
func dot8(q []float32, b string) float32 { return dotGo(q, b) }

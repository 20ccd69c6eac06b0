//go:build !unix

package builder

// YieldCPU does nothing off Unix, where ski's hooks do not run.
func YieldCPU() {}

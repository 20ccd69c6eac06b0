//go:build unix && !linux

package builder

import "syscall"

// YieldCPU lowers this process's priority as far as it goes.
func YieldCPU() { syscall.Setpriority(syscall.PRIO_PROCESS, 0, 19) }

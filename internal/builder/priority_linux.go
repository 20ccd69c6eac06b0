package builder

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// YieldCPU puts every thread of this process under SCHED_IDLE, so it runs
// only on CPU time nothing else wants (a prompt's hook always wins), or at
// nice 19 where that policy is refused. Threads started later inherit it
// from the thread that starts them.
func YieldCPU() {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}
		if unix.SchedSetAttr(tid, &attr, 0) != nil {
			unix.Setpriority(unix.PRIO_PROCESS, tid, 19)
		}
	}
}

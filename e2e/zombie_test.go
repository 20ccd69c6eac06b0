package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// procStat is what /proc/PID/stat says of a process: its state ('Z' for a
// zombie) and its parent.
type procStat struct {
	pid, ppid int
	state     byte
}

// readStat reads /proc/PID/stat; ok is false when the process is gone.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	// The command name is in parentheses and may hold spaces and ')'.
	rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
	f := strings.Fields(rest)
	if len(f) < 2 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	return procStat{pid: pid, ppid: ppid, state: f[0][0]}, true
}

// childrenOf lists the processes whose parent is pid, zombies included.
func childrenOf(pid int) []procStat {
	var out []procStat
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		p, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if st, ok := readStat(p); ok && st.ppid == pid {
			out = append(out, st)
		}
	}
	return out
}

// openFiles counts the descriptors process pid has open: folder watches
// (inotify instances), and the others.
func openFiles(t *testing.T, pid int) (watches, others int) {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("open files of %d: %v", pid, err)
	}
	for _, fd := range fds {
		if target, _ := os.Readlink(filepath.Join(dir, fd.Name())); strings.Contains(target, "inotify") {
			watches++
		} else {
			others++
		}
	}
	return watches, others
}

// The embed server waits for every builder it starts. Rounds of a long
// session: Claude Code and opencode sessions in new projects (whose
// indexes do not exist yet), prompts, a skill edited, and the full checks
// the server makes of every watched project (every --recheck) leave it no
// zombie child, and, once the builds are done, no child at all, as many
// open files as after the first round, and a folder watch at most per
// project.
func TestServerLeavesNoZombies(t *testing.T) {
	w := newWorld(t)
	realModel(t, w)
	// The hosts' own roots: the user's skills, and each project's.
	user := filepath.Join(w.home, ".claude", "skills")
	dirs, _ := filepath.Glob(filepath.Join(repo, "testdata", "skills", "*", "*"))
	for _, d := range dirs {
		if err := copyTree(d, filepath.Join(user, filepath.Base(d)), false); err != nil {
			t.Fatal(err)
		}
	}
	w.skills = ""
	w.extra = append(w.extra, "SKI_ROOTS=", "SKI_EMBED_SERVER=1")

	server := exec.Command(filepath.Join(binDir, "ski-embed"), "--serve", "--recheck", "1s")
	server.Env, server.Dir = w.env(), w.home
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Process.Kill(); server.Wait() })
	if pid := w.serverPID(20 * time.Second); pid != server.Process.Pid {
		t.Fatalf("the server's lock names pid %d, want %d", pid, server.Process.Pid)
	}
	pid := server.Process.Pid

	// A child is a zombie between its end and the server's wait for it:
	// one still a zombie a second after it was first seen is never
	// waited for.
	seen := map[int]time.Time{}
	zombies := func(when string) {
		t.Helper()
		now := time.Now()
		for _, c := range childrenOf(pid) {
			if c.state != 'Z' {
				continue
			}
			if first, ok := seen[c.pid]; !ok {
				seen[c.pid] = now
			} else if now.Sub(first) > time.Second {
				t.Fatalf("%s: the server has a zombie child, pid %d, for %v", when, c.pid, now.Sub(first).Round(time.Millisecond))
			}
		}
	}
	// settle waits until the server has no child left running (its
	// builders are done), failing at once on a zombie.
	settle := func(when string) {
		t.Helper()
		for end := time.Now().Add(90 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			zombies(when)
			if len(childrenOf(pid)) == 0 {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("%s: the server's builders still run after 90 s: %v", when, childrenOf(pid))
			}
		}
	}
	fds := 0
	for round := range 4 {
		project := filepath.Join(w.home, fmt.Sprintf("project-%d", round))
		writeFile(t, filepath.Join(project, ".claude", "skills", fmt.Sprintf("local-%d", round), "SKILL.md"),
			fmt.Sprintf("---\nname: local-%d\ndescription: release checklist for project %d\n---\nbody\n", round, round))
		w.dir = project
		event := func(name string) []byte {
			return []byte(strings.ReplaceAll(string(w.payload(name)), "/home/dev/shop", project))
		}
		w.hook("claude", "session-start", event("claude-session-startup.json"))
		w.hook("opencode", "session-start", event("opencode-session-startup.json"))
		for _, p := range []string{postmortemPrompt, helmPrompt} {
			w.hook("opencode", "prompt", withPrompt(t, event("opencode-prompt.json"), p))
			w.hook("claude", "prompt", withPrompt(t, event("claude-prompt.json"), p))
		}
		// A skill edited: the server's watch sees it and starts a builder.
		skill := filepath.Join(user, "postmortem", "SKILL.md")
		b, err := os.ReadFile(skill)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(skill, append(b, fmt.Sprintf("\nedit %d\n", round)...), 0o644); err != nil {
			t.Fatal(err)
		}
		when := fmt.Sprintf("round %d", round)
		settle(when)
		// Full checks: every watched project's, once a second.
		for end := time.Now().Add(2500 * time.Millisecond); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			zombies(when + ", full checks")
		}
		settle(when + ", after the full checks")
		// Each round's two projects (one per host) are watched, with a
		// descriptor each; whatever else a round opened is closed again.
		watches, n := openFiles(t, pid)
		t.Logf("%s: %d open files and %d folder watches", when, n, watches)
		if round == 0 {
			fds = n
		} else if n > fds {
			t.Errorf("%s: %d open files besides the folder watches, %d after the first round", when, n, fds)
		}
		if watches > 2*(round+1) {
			t.Errorf("%s: %d folder watches for %d projects", when, watches, 2*(round+1))
		}
	}
}

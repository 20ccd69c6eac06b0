package fetch

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// redrawEvery limits how often the TTY bar is redrawn.
const redrawEvery = 100 * time.Millisecond

// progress reports one file at a time. With tty it redraws a bar in place;
// without, it writes one line when a file is done. Write errors are
// ignored: progress is never worth failing a download for.
type progress struct {
	w   io.Writer
	tty bool

	name    string
	total   int64 // 0 if unknown
	have    int64 // bytes of the file on disk so far
	fresh   int64 // bytes received in this run, for the rate
	start   time.Time
	drawn   time.Time
	lastLen int // length of the last bar, to blank out leftovers
}

// begin starts a file of total bytes (0 = unknown), have of which are
// already in its .part.
func (p *progress) begin(name string, total, have int64) {
	if p.w == nil {
		return
	}
	p.name, p.total, p.have, p.fresh = name, total, have, 0
	p.start = time.Now()
	p.drawn = time.Time{}
	p.lastLen = 0
	p.draw(false)
}

// restart says the transfer now continues from byte at.
func (p *progress) restart(at int64) {
	if p.w == nil {
		return
	}
	p.have = at
	p.draw(false)
}

func (p *progress) add(n int64) {
	if p.w == nil {
		return
	}
	p.have += n
	p.fresh += n
	p.draw(false)
}

// done finishes the current file.
func (p *progress) done() {
	if p.w == nil {
		return
	}
	if p.tty {
		p.draw(true)
		fmt.Fprint(p.w, "\n")
		return
	}
	elapsed := time.Since(p.start)
	fmt.Fprintf(p.w, "%s: %s MB in %s (%s MB/s)\n", p.name, mb(p.have), elapsed.Round(time.Millisecond), mb(rate(p.fresh, elapsed)))
}

// abort ends the bar of a file that failed, so the error starts a line.
func (p *progress) abort() {
	if p.w != nil && p.tty && p.lastLen > 0 {
		fmt.Fprint(p.w, "\n")
	}
}

// skipped reports a file that was already in place.
func (p *progress) skipped(name string) {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "%s: up to date (sha256 verified)\n", name)
}

// draw redraws the bar, at most every redrawEvery unless force.
func (p *progress) draw(force bool) {
	if !p.tty {
		return
	}
	now := time.Now()
	if !force && now.Sub(p.drawn) < redrawEvery {
		return
	}
	p.drawn = now
	r := mb(rate(p.fresh, now.Sub(p.start)))
	var line string
	if p.total > 0 {
		pct := min(100*p.have/p.total, 100)
		line = fmt.Sprintf("%s %3d%% %s/%s MB %s MB/s", p.name, pct, mb(p.have), mb(p.total), r)
	} else {
		line = fmt.Sprintf("%s %s MB %s MB/s", p.name, mb(p.have), r)
	}
	pad := max(p.lastLen-len(line), 0)
	p.lastLen = len(line)
	fmt.Fprint(p.w, "\r"+line+strings.Repeat(" ", pad))
}

// rate is bytes per second.
func rate(n int64, d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(float64(n) / d.Seconds())
}

// mb formats bytes as decimal megabytes with one decimal.
func mb(n int64) string {
	return fmt.Sprintf("%.1f", float64(n)/1e6)
}

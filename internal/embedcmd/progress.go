package embedcmd

import (
	"fmt"
	"io"
	"time"

	"github.com/skill-inject/ski/internal/cli"
)

// progress shows how far a build is on a terminal, redrawn in place at
// most every redraw; elsewhere it says nothing.
type progress struct {
	w     io.Writer // nil: not a terminal
	label string
	start time.Time
	drawn time.Time
	shown bool
}

const redraw = 200 * time.Millisecond

func newProgress(w io.Writer, label string) *progress {
	p := &progress{label: label, start: time.Now()}
	if cli.IsTerminal(w) {
		p.w = w
	}
	return p
}

// show draws done of total, with the time left at the rate so far.
func (p *progress) show(done, total int) {
	if p.w == nil || total == 0 {
		return
	}
	now := time.Now()
	if done < total && now.Sub(p.drawn) < redraw {
		return
	}
	p.drawn, p.shown = now, true
	left := ""
	if el := now.Sub(p.start); done > 0 && done < total {
		left = fmt.Sprintf(", %s left", (el * time.Duration(total-done) / time.Duration(done)).Round(time.Second))
	}
	fmt.Fprintf(p.w, "\r\x1b[Kski-embed: %s %d/%d (%d%%)%s", p.label, done, total, done*100/total, left)
}

// end ends the line the progress was drawn on.
func (p *progress) end() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}

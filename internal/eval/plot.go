package eval

import (
	"fmt"
	"io"
	"math"
	"slices"
)

// Plot draws, as SVG, the distribution of each case's best score for three
// kinds of case: the best candidate is expected (right), another skill was
// expected (wrong), or nothing was (negative); with the thresholds in force.
func Plot(w io.Writer, title string, outs []Outcome, minSim, injectSim float64) error {
	const (
		width, height = 860, 420
		left, right   = 60, 20
		top, bottom   = 50, 50
		bins          = 40
		lo, hi        = 0.0, 1.0
	)
	series := []struct {
		name, color string
		counts      []int
	}{
		{"right (best candidate expected)", "#1a9641", make([]int, bins)},
		{"wrong (another skill expected)", "#fdae61", make([]int, bins)},
		{"negative (nothing expected)", "#d7191c", make([]int, bins)},
	}
	for _, o := range outs {
		if o.Top == "" || o.Slash() {
			continue
		}
		s := 2
		if len(o.Groups) > 0 {
			s = 1
			for _, g := range o.Groups {
				if slices.Contains(g, o.Top) {
					s = 0
				}
			}
		}
		b := int((math.Min(o.TopScore, hi-1e-9) - lo) / (hi - lo) * bins)
		series[s].counts[max(b, 0)]++
	}
	peak := 1
	for _, s := range series {
		for _, c := range s.counts {
			peak = max(peak, c)
		}
	}
	x := func(v float64) float64 { return left + (v-lo)/(hi-lo)*(width-left-right) }
	y := func(c int) float64 { return height - bottom - float64(c)/float64(peak)*(height-top-bottom) }

	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(w, `<text x="%d" y="22" font-size="15">%s</text>`+"\n", left, escape(title))
	fmt.Fprintf(w, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="black"/>`+"\n", x(lo), y(0), x(hi), y(0))
	fmt.Fprintf(w, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="black"/>`+"\n", x(lo), y(0), x(lo), y(peak))
	for t := 0.0; t <= hi+1e-9; t += 0.1 {
		fmt.Fprintf(w, `<text x="%g" y="%g" text-anchor="middle">%.1f</text>`+"\n", x(t), y(0)+18, t)
	}
	fmt.Fprintf(w, `<text x="%g" y="%g" text-anchor="middle">best score of the prompt (1.0 and above: mentions)</text>`+"\n", x((lo+hi)/2), float64(height)-8)
	fmt.Fprintf(w, `<text x="%d" y="%g" text-anchor="end">%d</text>`+"\n", left-6, y(peak)+4, peak)
	fmt.Fprintf(w, `<text x="%d" y="%g" text-anchor="end">0</text>`+"\n", left-6, y(0)+4)
	for i, s := range series {
		path := fmt.Sprintf("M%g %g", x(lo), y(0))
		for b, c := range s.counts {
			x0, x1 := x(lo+float64(b)*(hi-lo)/bins), x(lo+float64(b+1)*(hi-lo)/bins)
			path += fmt.Sprintf(" L%g %g L%g %g", x0, y(c), x1, y(c))
		}
		path += fmt.Sprintf(" L%g %g", x(hi), y(0))
		fmt.Fprintf(w, `<path d="%s" fill="%s" fill-opacity="0.25" stroke="%s" stroke-width="1.5"/>`+"\n", path, s.color, s.color)
		fmt.Fprintf(w, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			width-300, top+i*18, s.color, width-282, top+i*18+10, s.name)
	}
	for i, th := range []struct {
		v    float64
		name string
	}{{minSim, "min_similarity"}, {injectSim, "inject_similarity"}} {
		fmt.Fprintf(w, `<line x1="%g" y1="%d" x2="%g" y2="%g" stroke="#2b83ba" stroke-dasharray="5,4"/>`+"\n", x(th.v), top, x(th.v), y(0))
		fmt.Fprintf(w, `<text x="%g" y="%d" fill="#2b83ba">%s %.2f</text>`+"\n", x(th.v)+4, top-6+i*14, th.name, th.v)
	}
	_, err := fmt.Fprintln(w, "</svg>")
	return err
}

func escape(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch r {
		case '<':
			out = append(out, []rune("&lt;")...)
		case '>':
			out = append(out, []rune("&gt;")...)
		case '&':
			out = append(out, []rune("&amp;")...)
		default:
			out = append(out, r)
		}
	}
	return string(out)
}

package eval

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// FloorPrefix starts the line of a document (docs/quality.md) that holds
// the out-of-fold numbers a model must keep on a labelled set:
//
//	floor <set> <model> top1=89.7 injected=83.2 ... (percent)
const FloorPrefix = "floor "

// floorMetrics are the numbers a floor line may hold, how to read each
// from a report, and whether higher is better.
var floorMetrics = map[string]struct {
	get    func(Report) float64
	higher bool
}{
	"top1":        {func(r Report) float64 { return r.Overall.Top1 }, true},
	"injected":    {func(r Report) float64 { return r.Overall.GatedRecall }, true},
	"reached":     {func(r Report) float64 { return r.Overall.ReachedRecall }, true},
	"near_miss":   {func(r Report) float64 { return r.Categories["near-miss"].Right }, true},
	"mention":     {func(r Report) float64 { return r.Categories["mention"].Right }, true},
	"fp_negative": {func(r Report) float64 { return r.Categories["negative"].FalseInjection }, false},
	"noise":       {func(r Report) float64 { return r.Overall.SuggestionNoise }, false},
}

// CheckFloor compares a report with the floor line for set and the
// report's model in doc: it fails when a number is more than tolerance
// points worse than the line's, and when there is no such line.
func CheckFloor(r Report, doc, set string, tolerance float64) error {
	want := FloorPrefix + set + " " + r.Model + " "
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, want) {
			continue
		}
		var worse []string
		for _, kv := range strings.Fields(strings.TrimPrefix(line, want)) {
			k, v, ok := strings.Cut(kv, "=")
			m, known := floorMetrics[k]
			floor, err := strconv.ParseFloat(v, 64)
			if !ok || !known || err != nil {
				return fmt.Errorf("floor line %q: cannot read %q", line, kv)
			}
			got := 100 * m.get(r)
			if (m.higher && got < floor-tolerance) || (!m.higher && got > floor+tolerance) {
				worse = append(worse, fmt.Sprintf("%s %.1f (floor %.1f)", k, got, floor))
			}
		}
		if len(worse) > 0 {
			return fmt.Errorf("%s, %s: more than %.0f points worse than the floor: %s", set, r.Model, tolerance, strings.Join(worse, ", "))
		}
		return nil
	}
	return fmt.Errorf("no line %q… holds the floor of %s for %s", strings.TrimSpace(want), set, r.Model)
}

package gate

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/skill-inject/ski/internal/ndjson"
	"github.com/skill-inject/ski/internal/record"
)

// writer writes selections as records, or as a table for people.
type writer struct {
	records *ndjson.Writer
	table   *tabwriter.Writer
	header  bool
}

func newWriter(out io.Writer, table bool) *writer {
	if table {
		return &writer{table: tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)}
	}
	return &writer{records: ndjson.NewWriter(out)}
}

func (w *writer) write(s record.Selection) error {
	if w.records != nil {
		return w.records.Encode(s)
	}
	if !w.header {
		w.header = true
		fmt.Fprintln(w.table, "RANK\tSCORE\tDECISION\tSKILL\tWHY\tREASON")
	}
	why := ""
	for i, part := range s.Why {
		if i > 0 {
			why += "; "
		}
		why += part
	}
	_, err := fmt.Fprintf(w.table, "%d\t%.3f\t%s\t%s\t%s\t%s\n", s.Rank, s.Score, s.Decision, s.ID, why, s.Reason)
	return err
}

func (w *writer) flush() error {
	if w.records != nil {
		return w.records.Flush()
	}
	return w.table.Flush()
}

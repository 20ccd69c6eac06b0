package record

import (
	"encoding/json"

	"github.com/skill-inject/ski/internal/ndjson"
)

// Queried is a record that belongs to one query.
type Queried interface {
	kind() string
	query() string
}

func (c Candidate) kind() string  { return c.Kind }
func (c Candidate) query() string { return c.QueryID }

// EachQuery reads records of kind want from r and calls fn with each run of
// consecutive records of one query. from names the stage that should feed
// this one, for the error message about a record of the wrong kind.
func EachQuery[T Queried](r *ndjson.Reader, want, from string, fn func([]T) error) error {
	var group []T
	if err := r.Each(func(line []byte) error {
		var rec T
		if err := json.Unmarshal(line, &rec); err != nil {
			return r.Errorf("decode %s: %w", want, err)
		}
		if rec.kind() != want {
			return r.Errorf("kind %q, want %q (pipe %s into this stage)", rec.kind(), want, from)
		}
		if len(group) > 0 && group[0].query() != rec.query() {
			if err := fn(group); err != nil {
				return err
			}
			group = nil
		}
		group = append(group, rec)
		return nil
	}); err != nil {
		return err
	}
	if len(group) == 0 {
		return nil
	}
	return fn(group)
}

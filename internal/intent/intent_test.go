package intent

import "testing"

func TestOf(t *testing.T) {
	for p, want := range map[string]Kind{
		"the importer panics with 'index out of range', here's the trace":        BugHunt,
		"checkout totals come out as NaN when the coupon is empty, find out why": BugHunt,
		"just fix the failing test in parser_test.go":                            BugHunt,
		"Traceback (most recent call last):\n  File \"a.py\", line 1":            BugHunt,
		"rename the variable cfg to config in loader.go, nothing else":           SmallEdit,
		"fix the typo in the README heading":                                     SmallEdit,
		"the docs page has a broken link to the API reference, fix the link":     SmallEdit,
		"what does the --frozen-lockfile flag do? just explain":                  SmallEdit,
		"change the color of the submit button to blue":                          SmallEdit,
		"write a blameless postmortem for yesterday's outage":                    None,
		"rename these scanned receipts by date and vendor":                       None,
		"set up a terraform module for our VPC":                                  None,
	} {
		if got := Of(p); got != want {
			t.Errorf("Of(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestExpand(t *testing.T) {
	if got := Expand("x", BugHunt); got != "x\n"+BugHuntHint {
		t.Errorf("bug hunt: %q", got)
	}
	for _, k := range []Kind{None, SmallEdit} {
		if got := Expand("x", k); got != "x" {
			t.Errorf("%q: %q", k, got)
		}
	}
}

func TestConcept(t *testing.T) {
	if Concept(BugHunt) != BugHuntHint || Concept(None) != "" || Concept(SmallEdit) != "" {
		t.Error("concepts")
	}
}

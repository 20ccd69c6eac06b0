package cli

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A deadline that has passed already stops the command before it runs.
func TestMainPastDeadline(t *testing.T) {
	var stderr bytes.Buffer
	past := strconv.FormatInt(time.Now().Add(-time.Second).UnixMilli(), 10)
	env := Env{Stderr: &stderr, Getenv: func(k string) string {
		if k == DeadlineEnv {
			return past
		}
		return ""
	}}
	ran := false
	code := Main("ski-x", env, func(Env) error { ran = true; return nil })
	if code != ExitError || ran || !strings.Contains(stderr.String(), "ski-x: deadline passed") {
		t.Fatalf("code %d, ran %v, stderr %q", code, ran, stderr.String())
	}
}

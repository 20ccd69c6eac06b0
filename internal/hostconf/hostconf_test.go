package hostconf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The usage score Claude Code sorts its listing by: the count halved every
// week since the last use, never below a tenth of it.
func TestScore(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	week := float64(7 * 24 * time.Hour / time.Millisecond)
	ms := float64(now.UnixMilli())
	os.WriteFile(filepath.Join(dir, ".claude.json"), []byte(`{"skillUsage":{
		"fresh":{"usageCount":4,"lastUsedAt":`+ftoa(ms)+`},
		"week":{"usageCount":4,"lastUsedAt":`+ftoa(ms-week)+`},
		"old":{"usageCount":4,"lastUsedAt":`+ftoa(ms-10*week)+`}}}`), 0o644)
	c := ReadClaude(dir, filepath.Join(dir, ".claude.json"), "")
	for name, want := range map[string]float64{"fresh": 4, "week": 2, "old": 0.4, "never": 0} {
		if got := c.Score(name, now); got < want-1e-9 || got > want+1e-9 {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

func ftoa(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

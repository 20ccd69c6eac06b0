package cut

import "testing"

func TestRunes(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"héllo", 2, "hé"}, {"héllo", 5, "héllo"}, {"héllo", 9, "héllo"}, {"東京", 1, "東"}, {"abc", 0, ""}, {"", 3, ""},
	} {
		if got := Runes(tt.s, tt.n); got != tt.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestFences(t *testing.T) {
	got := Fences("run it:\n```sh\nmake all\n```\nthen ```go\nunclosed")
	if got != "run it:\n \nthen  " {
		t.Errorf("got %q", got)
	}
}

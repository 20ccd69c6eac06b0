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

func TestShort(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"a  b\n c", 10, "a b c"}, {"one two three", 9, "one two…"}, {"abc, def", 5, "abc…"}, {"東京都", 2, "東…"},
	} {
		if got := Short(tt.s, tt.n); got != tt.want {
			t.Errorf("Short(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

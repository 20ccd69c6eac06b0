package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)

// testStore is a store in a fresh directory that collects warnings.
func testStore(t *testing.T) (*Store, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var warns []string
	s := &Store{
		Dir: filepath.Join(t.TempDir(), "state", "sessions"),
		Warn: func(m string) {
			mu.Lock()
			warns = append(warns, m)
			mu.Unlock()
		},
		Now: func() time.Time { return t0 },
	}
	return s, &warns
}

// An id that looks like the hashed key of another maps elsewhere.
func TestKeyCollisionFree(t *testing.T) {
	other := "a/b"
	hashed, _ := Key(other)
	key, _ := Key(hashed)
	if key == hashed {
		t.Fatalf("session %q and session %q share the ledger %s", other, hashed, key)
	}
}

func TestKey(t *testing.T) {
	hashed := regexp.MustCompile(`^h-[0-9a-f]{32}$`)
	tests := []struct {
		session string
		same    bool // used as it is
	}{
		{"abc", true},
		{"4f2c9d1e-0b7a-4c55-9a43-2f1f0e9d7c11", true},
		{"ses_01JC9ZQ3X4.b", true},
		{strings.Repeat("a", 100), true},
		{strings.Repeat("a", 101), false},
		{".", false},
		{"..", false},
		{"...", true},
		{"../../etc/passwd", false},
		{"a/b", false},
		{`a\b`, false},
		{"a b", false},
		{"ümlaut", false},
		{"nul\x00byte", false},
		{"line\nbreak", false},
		{"h-0123456789abcdef0123456789abcdef", false}, // looks hashed: hashed too
		{"h-x", false},
	}
	for _, tt := range tests {
		key, err := Key(tt.session)
		if err != nil {
			t.Fatalf("Key(%q): %v", tt.session, err)
		}
		if tt.same && key != tt.session {
			t.Errorf("Key(%q) = %q, want it unchanged", tt.session, key)
		}
		if !tt.same && !hashed.MatchString(key) {
			t.Errorf("Key(%q) = %q, want h-<32 hex>", tt.session, key)
		}
		if key != filepath.Base(key) || key == "." || key == ".." {
			t.Errorf("Key(%q) = %q is not a plain file name", tt.session, key)
		}
	}
	if _, err := Key(""); err == nil {
		t.Error("Key(\"\") succeeded, want an error")
	}
	a, _ := Key("../../etc/passwd")
	b, _ := Key("../../etc/shadow")
	if a == b {
		t.Errorf("two ids share key %q", a)
	}
}

func TestTraversalStaysInDir(t *testing.T) {
	s, _ := testStore(t)
	session := "../../etc/passwd"
	if err := s.Update(session, func(l *Ledger) error {
		l.MarkLoaded("x", SourceSki, t0)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	path, _ := s.Path(session)
	if filepath.Dir(path) != s.Dir {
		t.Fatalf("ledger at %s, outside %s", path, s.Dir)
	}
	l, err := s.Load(session)
	if err != nil {
		t.Fatal(err)
	}
	if l.SessionID() != session {
		t.Errorf("session id %q, want %q", l.SessionID(), session)
	}
	if _, ok := l.Loaded("x"); !ok {
		t.Error("x not loaded after reload")
	}
}

func TestLoadMissing(t *testing.T) {
	s, warns := testStore(t)
	l, err := s.Load("nope")
	if err != nil {
		t.Fatal(err)
	}
	if l.SessionID() != "nope" || len(l.LoadedIDs()) != 0 || len(l.Events()) != 0 {
		t.Errorf("missing ledger not empty: %+v", l)
	}
	if len(*warns) != 0 {
		t.Errorf("warnings: %q", *warns)
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("Load created %s", s.Dir)
	}
}

func TestUpdateRoundTrip(t *testing.T) {
	s, _ := testStore(t)
	err := s.Update("s1", func(l *Ledger) error {
		l.MarkLoaded("a", SourceSki, t0)
		l.MarkLoaded("a", SourceModel, t0.Add(time.Second))
		l.MarkLoaded("b", SourceUser, t0)
		l.MarkSuggested("c", t0)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Load("s1")
	if err != nil {
		t.Fatal(err)
	}
	a, ok := l.Loaded("a")
	if !ok || a.Source != SourceModel || a.Count != 2 || !a.At.Equal(t0.Add(time.Second)) {
		t.Errorf("a = %+v, %v", a, ok)
	}
	if b, ok := l.Loaded("b"); !ok || b.Source != SourceUser || b.Count != 1 {
		t.Errorf("b = %+v, %v", b, ok)
	}
	if _, ok := l.Loaded("c"); ok {
		t.Error("suggested c counts as loaded")
	}
	if !l.Suggested("c") || l.Suggested("a") {
		t.Error("Suggested wrong")
	}
	var kinds []string
	for _, e := range l.Events() {
		kinds = append(kinds, e.Kind+":"+e.ID+":"+string(e.Source))
	}
	want := "inject:a:ski load:a:model host-load:b:user suggest:c:ski"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if !l.Updated().Equal(t0.Add(time.Second)) {
		t.Errorf("updated %v", l.Updated())
	}

	// On-disk format.
	path, _ := s.Path("s1")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "session_id", "loaded", "suggested", "events", "updated"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("file lacks %q: %s", k, data)
		}
	}
	if raw["version"] != float64(1) {
		t.Errorf("version %v", raw["version"])
	}
	if !bytes.Contains(data, []byte(`"a":{"source":"model","at":"2026-11-03T10:00:01Z","count":2}`)) {
		t.Errorf("unexpected entry encoding: %s", data)
	}

	// Permissions.
	for p, want := range map[string]os.FileMode{path: 0o600, s.Dir: 0o700} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", p, info.Mode().Perm(), want)
		}
	}
	// No temporary files left behind.
	ents, _ := os.ReadDir(s.Dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("left %s", e.Name())
		}
	}
}

func TestUpdateErrorWritesNothing(t *testing.T) {
	s, _ := testStore(t)
	err := s.Update("s1", func(l *Ledger) error {
		l.MarkLoaded("a", SourceSki, t0)
		return fmt.Errorf("boom")
	})
	if err == nil || err.Error() != "boom" {
		t.Fatalf("err = %v", err)
	}
	path, _ := s.Path("s1")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("ledger written despite error")
	}
}

func TestBadFilesSetAside(t *testing.T) {
	tests := map[string]string{
		"garbage":          "not json at all",
		"truncated":        `{"version":1,"session_id":"s1","loaded":{`,
		"empty":            "",
		"array":            `[1,2,3]`,
		"null":             `null`,
		"foreign":          `{"name":"something else","loaded":{"a":"ski"}}`,
		"old plan format":  `{"loaded":{"a":"ski"},"updated":"2026-06-14T12:00:00Z"}`,
		"future version":   `{"version":2,"session_id":"s1","loaded":{}}`,
		"string version":   `{"version":"1","session_id":"s1"}`,
		"other session":    `{"version":1,"session_id":"s2","loaded":{}}`,
		"bad entry":        `{"version":1,"session_id":"s1","loaded":{"a":"ski"}}`,
		"bad time":         `{"version":1,"session_id":"s1","updated":"yesterday"}`,
		"invalid utf-8":    "\xff\xfe{",
		"trailing garbage": `{"version":1,"session_id":"s1"} x`,
	}
	for name, content := range tests {
		for _, via := range []string{"Load", "Update"} {
			t.Run(name+"/"+via, func(t *testing.T) {
				s, warns := testStore(t)
				if err := os.MkdirAll(s.Dir, 0o700); err != nil {
					t.Fatal(err)
				}
				path, _ := s.Path("s1")
				if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
				var l *Ledger
				var err error
				if via == "Load" {
					l, err = s.Load("s1")
				} else {
					err = s.Update("s1", func(got *Ledger) error {
						l = got
						if len(got.LoadedIDs()) != 0 {
							t.Errorf("ledger not empty: %v", got.LoadedIDs())
						}
						got.MarkLoaded("fresh", SourceSki, t0)
						return nil
					})
				}
				if err != nil {
					t.Fatalf("%s: %v", via, err)
				}
				if l.SessionID() != "s1" {
					t.Errorf("session %q", l.SessionID())
				}
				if len(*warns) != 1 || !strings.Contains((*warns)[0], "moved aside") {
					t.Errorf("warnings %q", *warns)
				}
				aside := fmt.Sprintf("%s.corrupt-%d", path, t0.UnixNano())
				got, err := os.ReadFile(aside)
				if err != nil {
					t.Fatalf("bad file not kept: %v", err)
				}
				if string(got) != content {
					t.Errorf("set-aside file changed: %q", got)
				}
				if via == "Load" {
					if _, err := os.Stat(path); !os.IsNotExist(err) {
						t.Errorf("bad file still in place")
					}
					return
				}
				l2, err := s.Load("s1")
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := l2.Loaded("fresh"); !ok {
					t.Errorf("fresh ledger not written")
				}
			})
		}
	}
}

func TestTooLargeIsCorrupt(t *testing.T) {
	s, warns := testStore(t)
	os.MkdirAll(s.Dir, 0o700)
	path, _ := s.Path("big")
	big := append([]byte(`{"version":1,"session_id":"big","x":"`), bytes.Repeat([]byte("a"), maxFileSize)...)
	big = append(big, `"}`...)
	if err := os.WriteFile(path, big, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("big"); err != nil {
		t.Fatal(err)
	}
	if len(*warns) != 1 {
		t.Errorf("warnings %q", *warns)
	}
}

func TestRearm(t *testing.T) {
	s, _ := testStore(t)
	err := s.Update("s", func(l *Ledger) error {
		l.MarkLoaded("a", SourceSki, t0)
		l.MarkSuggested("b", t0)
		l.Rearm(t0.Add(time.Minute))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := s.Load("s")
	if _, ok := l.Loaded("a"); ok || l.Suggested("b") {
		t.Error("rearm kept state")
	}
	ev := l.Events()
	if len(ev) != 3 || ev[2].Kind != EventRearm || ev[2].ID != "" || !ev[2].At.Equal(t0.Add(time.Minute)) {
		t.Errorf("events %+v", ev)
	}
	// After a rearm the same skill can be loaded again, counting from 1.
	l.MarkLoaded("a", SourceSki, t0)
	if e, _ := l.Loaded("a"); e.Count != 1 {
		t.Errorf("count %d after rearm", e.Count)
	}
	// Rearm on an empty ledger is fine.
	New("x").Rearm(t0)
}

func TestEventsCap(t *testing.T) {
	s, _ := testStore(t)
	err := s.Update("s", func(l *Ledger) error {
		for i := range MaxEvents + 100 {
			l.MarkLoaded(fmt.Sprint("id", i), SourceSki, t0)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := s.Load("s")
	ev := l.Events()
	if len(ev) != MaxEvents {
		t.Fatalf("%d events, want %d", len(ev), MaxEvents)
	}
	if ev[0].ID != "id100" || ev[len(ev)-1].ID != fmt.Sprint("id", MaxEvents+99) {
		t.Errorf("kept %s..%s", ev[0].ID, ev[len(ev)-1].ID)
	}
	if len(l.LoadedIDs()) != MaxEvents+100 {
		t.Errorf("loaded map capped too")
	}
	// A file with too many events (written by hand) is trimmed on load.
	var evs []Event
	for range MaxEvents + 3 {
		evs = append(evs, Event{At: t0, Kind: EventRearm})
	}
	data, _ := json.Marshal(file{Version: 1, SessionID: "s", Events: evs})
	l2, err := decode(data)
	if err != nil || len(l2.Events()) != MaxEvents {
		t.Errorf("trim on load: %v, %d", err, len(l2.Events()))
	}
}

func TestConcurrentUpdates(t *testing.T) {
	s, _ := testStore(t)
	s.Now = nil
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errs <- s.Update("shared", func(l *Ledger) error {
				l.MarkLoaded(fmt.Sprint("skill-", i), SourceSki, time.Now())
				return nil
			})
		})
	}
	// Readers meanwhile never see a half-written file.
	done := make(chan struct{})
	var readErr error
	go func() {
		defer close(done)
		for range 200 {
			if _, err := s.Load("shared"); err != nil {
				readErr = err
				return
			}
		}
	}()
	wg.Wait()
	<-done
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if readErr != nil {
		t.Fatal(readErr)
	}
	l, err := s.Load("shared")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(l.LoadedIDs()); got != n {
		t.Errorf("%d skills recorded, want %d: %v", got, n, l.LoadedIDs())
	}
	if got := len(l.Events()); got != n {
		t.Errorf("%d events, want %d", got, n)
	}
}

func TestLockTimeout(t *testing.T) {
	s, _ := testStore(t)
	s.LockTimeout = 50 * time.Millisecond
	os.MkdirAll(s.Dir, 0o700)
	f, ok := tryLockPath(s.path("busy", ".lock"))
	if !ok {
		t.Fatal("cannot take lock")
	}
	defer f.Close()
	err := s.Update("busy", func(*Ledger) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "still held") {
		t.Errorf("err = %v, want a lock timeout", err)
	}
}

func TestList(t *testing.T) {
	s, warns := testStore(t)
	for i, id := range []string{"b", "a", "weird/id"} {
		s.Now = func() time.Time { return t0.Add(time.Duration(i) * time.Minute) }
		if err := s.Update(id, func(l *Ledger) error {
			l.MarkLoaded("x", SourceSki, t0)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(s.Dir, "junk.json"), []byte("{"), 0o600)
	os.WriteFile(filepath.Join(s.Dir, "b.json.corrupt-1"), []byte("{"), 0o600)
	ls, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range ls {
		ids = append(ids, l.SessionID())
	}
	if got := strings.Join(ids, ","); got != "b,a,weird/id" {
		t.Errorf("List = %s", got)
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "junk.json") {
		t.Errorf("warnings %q", *warns)
	}
}

func TestGC(t *testing.T) {
	s, _ := testStore(t)
	now := time.Now()
	s.Now = func() time.Time { return now }
	for _, id := range []string{"old", "fresh", "busy"} {
		if err := s.Update(id, func(l *Ledger) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	long := now.Add(-800 * time.Hour)
	touch := func(name string, create bool) {
		p := filepath.Join(s.Dir, name)
		if create {
			if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}
	touch("old.json", false)
	touch("busy.json", false)
	touch("orphan.lock", true)
	touch(".old.json.tmp-123", true)
	touch("old.json.corrupt-5", true)
	os.WriteFile(filepath.Join(s.Dir, ".fresh.json.tmp-9"), []byte("x"), 0o600)

	held, ok := tryLockPath(s.path("busy", ".lock"))
	if !ok {
		t.Fatal("cannot lock busy")
	}
	res, err := s.GC(720 * time.Hour)
	held.Close()
	if err != nil {
		t.Fatal(err)
	}
	if res != (GCResult{Ledgers: 1, Locks: 2, Temps: 1}) {
		t.Errorf("GC = %+v", res)
	}
	var left []string
	ents, _ := os.ReadDir(s.Dir)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	want := ".fresh.json.tmp-9 busy.json busy.lock fresh.json fresh.lock old.json.corrupt-5"
	if got := strings.Join(left, " "); got != want {
		t.Errorf("left %q\nwant %q", got, want)
	}
	// The session whose ledger and lock were removed works again.
	if err := s.Update("old", func(l *Ledger) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// GC of a missing directory is fine.
	s.Dir = filepath.Join(s.Dir, "nope")
	if _, err := s.GC(time.Hour); err != nil {
		t.Error(err)
	}
}

func TestLoadCorruptWhileLocked(t *testing.T) {
	s, warns := testStore(t)
	s.LockTimeout = 20 * time.Millisecond
	os.MkdirAll(s.Dir, 0o700)
	path, _ := s.Path("s")
	os.WriteFile(path, []byte("{"), 0o600)
	f, ok := tryLockPath(s.path("s", ".lock"))
	if !ok {
		t.Fatal("cannot lock")
	}
	defer f.Close()
	l, err := s.Load("s")
	if err != nil || len(l.LoadedIDs()) != 0 {
		t.Fatalf("Load = %v, %v", l, err)
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "treating it as empty") {
		t.Errorf("warnings %q", *warns)
	}
	if data, _ := os.ReadFile(path); string(data) != "{" {
		t.Errorf("file changed: %q", data)
	}
}

package front

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/skill-inject/ski/internal/listing"
	"github.com/skill-inject/ski/internal/record"
	"github.com/skill-inject/ski/internal/render"
)

// listing is what host's skill listing shows the model of each skill
// from the project, for the model its settings run ("" for the smallest
// budget).
func (w *world) listing(host string) (listing.Listing, error) {
	return listing.For(w.env.Environ, w.config(), host, w.cwd, "", time.Now(), w.res.Warn)
}

// listings adds ski doctor's account of what each host's listing shows:
// the count of each state, the skills whose description the model never
// sees, and what ski does about them.
func (w *world) listings(l *lines, hosts []string) {
	if len(hosts) == 0 {
		hosts = []string{w.host}
	}
	l.add("")
	l.add("what the hosts' skill listings show the model:")
	for _, host := range hosts {
		x, err := w.listing(host)
		if err != nil {
			l.add("  %s: %v", host, err)
			continue
		}
		if x.Budget == 0 {
			l.add("  %s: all shown (no listing budget); %d absent (disable-model-invocation)", host, x.Count(listing.Absent))
			continue
		}
		l.add("  %s: %s", host, listingSummary(x))
		if names := x.Names(listing.Bare); len(names) > 0 {
			l.add("    bare names (the model sees no description): %s", strings.Join(names, ", "))
		}
		if names := x.Names(listing.Cut); len(names) > 0 {
			l.add("    cut descriptions: %s", strings.Join(names, ", "))
		}
		if names := x.Names(listing.Absent); len(names) > 0 {
			l.add("    absent (not listed; the model may not invoke them, or Claude Code does not look there): %s", strings.Join(names, ", "))
		}
		if x.Count(listing.Bare)+x.Count(listing.Absent) > 0 {
			l.add("    what ski does: its directives and suggestions give a bare name's description (at most %d characters)", render.MaxBrief)
			l.add("    and inject an absent skill's body; skill_search finds them all by what they do")
		}
	}
}

// listingSummary is one line of what a listing shows: the model and
// budget, and how many skills are in each state.
func listingSummary(x listing.Listing) string {
	model := x.Model
	if model == "" {
		model = "no model set: the smallest budget"
	}
	parts := []string{}
	for _, st := range []struct{ state, words string }{
		{listing.Full, "described"}, {listing.Cut, "cut"}, {listing.Bare, "bare names"}, {listing.Absent, "absent"},
	} {
		parts = append(parts, fmt.Sprintf("%d %s", x.Count(st.state), st.words))
	}
	if n := x.Count(""); n > 0 {
		parts = append(parts, fmt.Sprintf("%d from SKI_ROOTS, not known", n))
	}
	return fmt.Sprintf("%d skills under a listing budget of %d characters (%s): %s",
		len(x.Skills), x.Budget, model, strings.Join(parts, ", "))
}

// listingStatus is ski status's line on the host's listing.
func (w *world) listingStatus(l *lines) {
	x, err := w.listing(w.host)
	switch {
	case err != nil:
		l.add("skill listing: %v", err)
	case w.host == record.HostOpencode || x.Budget == 0:
		l.add("skill listing: all shown (%s has no listing budget)", w.host)
	default:
		unknown := ""
		if n := x.Count(""); n > 0 {
			unknown = fmt.Sprintf(", %d from SKI_ROOTS not known", n)
		}
		l.add("skill listing: %d of %d skills shown as bare names, %d absent%s (%d characters for %s); ski doctor names them",
			x.Count(listing.Bare), len(x.Skills), x.Count(listing.Absent), unknown, x.Budget, cmp.Or(x.Model, "the smallest budget"))
	}
}

package scan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
)

// Stamp summarises what a scan with o would read without reading it: the
// roots, and the path, identity, size and change times of every SKILL.md
// they hold. Equal stamps mean the same files with the same bytes (short of
// someone resetting both the modification and the change time), so an index
// built from a scan with that stamp is still current. It costs a directory
// walk and a stat per skill, a fraction of a scan.
func Stamp(o Options) (string, error) { return StampWith(o, nil) }

// StampWith is Stamp, listing again only the directories that changed
// since the walk l remembers (nil: all of them); l then remembers this
// walk (Listings.Save keeps it for the next process).
func StampWith(o Options, l *Listings) (string, error) {
	o, err := o.normalize()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	// "ids by source": indexes of the bare-folder ids are rebuilt once.
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00ids by source\n", o.Host, o.MaxDepth, o.MaxSize)
	for _, r := range Roots(o) {
		fmt.Fprintf(h, "root %s\x00%s\x00%s\x00%t\n", r.Path, r.Scope, r.Plugin, isDir(r.Path))
		if !isDir(r.Path) {
			continue
		}
		hits, problems := walk(r.Path, o.MaxDepth, l)
		for _, p := range problems {
			fmt.Fprintf(h, "problem %s\x00%s\n", p.path, p.reason)
		}
		for _, t := range hits {
			fmt.Fprintf(h, "hit %s\x00%s\x00", t.id, t.path)
			st, err := os.Stat(t.path)
			if err != nil {
				fmt.Fprintf(h, "%v\n", err)
				continue
			}
			fmt.Fprintf(h, "%d\x00%d\x00%v", st.Size(), st.ModTime().UnixNano(), st.Mode())
			fmt.Fprintf(h, "\x00%s\n", fileID(st))
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

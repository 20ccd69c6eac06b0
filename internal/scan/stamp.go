package scan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
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
		// Each hit's line is appended, not formatted: with 10,000 skills
		// fmt took ~7% of a stamp.
		var b []byte
		for _, t := range hits {
			b = append(b[:0], "hit "...)
			b = append(append(b, t.id...), 0)
			b = append(append(b, t.path...), 0)
			st, err := os.Stat(t.path)
			if err != nil {
				h.Write(b)
				fmt.Fprintf(h, "%v\n", err)
				continue
			}
			b = append(strconv.AppendInt(b, st.Size(), 10), 0)
			b = append(strconv.AppendInt(b, st.ModTime().UnixNano(), 10), 0)
			b = append(append(b, st.Mode().String()...), 0)
			b = append(appendFileID(b, st), '\n')
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Package vecfile reads and writes ski's index: a versioned, model-tagged
// file holding each skill's record, vector and BM25 terms.
//
// Layout (fixed-size numbers little-endian; n is a uvarint; a string is n
// and its bytes, a list is n strings; every checksum is a CRC-32C):
//
//	magic    "SKIVEC\n"
//	version  uint16
//	header   uint32 length + uint32 checksum + JSON Header
//	table    eight sections, each uint32 length + uint32 checksum + bytes:
//	  entry index  count × { uint32 end of the entry in the entries,
//	                         uint32 checksum of the entry }
//	  entries      count × { id, name, invoke, path, dir,
//	                         keywords, aliases, tags, affinity (lists),
//	                         byte flags (1 disable_model_invocation, 2 auto_inject,
//	                         4 not user_invocable, 8 invoke is the name (stored
//	                         empty), 16 dir is the path's folder (stored empty)) }
//	  vectors      count × Dim × binary16 (package quant)
//	  intents      n × { intent kind, concept text, Dim × float32 vector }
//	  keyworded    n + n × n: the entries with keywords, aliases or tags,
//	               each less the one before
//	  names        n × { uint32 hash of a name (nameHash), uint32 entry },
//	               sorted: each entry's names (record.MentionKeys)
//	  text         bm25.Inverted of the skills' text terms
//	  body         bm25.Inverted of the skills' whole bodies
//	records  uint32 length + uint32 checksum + the records,
//	         count × { uint32 length + JSON record.Skill } compressed by
//	         a RecordCodec (package indexfile's: one zstd frame)
//
// The table holds everything ranking reads, in binary, so that
// ReadRanking, which every prompt runs, reads the header and the table and
// no further: no JSON, and terms and names cut from one string instead of
// allocated one by one. The full records are read by Read, to rebuild an
// index; their compression is a RecordCodec the caller passes (package
// indexfile passes zstd), so a program that reads only what ranking needs
// links no compressor: zstd's package start-up alone costs ~0.16 ms.
//
// Version 2 added the BM25 statistics and each skill's term counts; version
// 3 moved what ranking reads into the table and dropped compression (v2
// compressed it all with zstd and kept each skill as JSON, which made
// ski-rank spend ~8 ms reading the index, and zstd's package start-up alone
// cost every stage linking it ~0.25 ms). Version 4 added the body field
// and compresses the records, which only a rebuild reads, with zstd again:
// the body field holds the terms of each skill's whole SKILL.md body, kept
// by term and read in place (bm25.Inverted), so a prompt touches only its
// own terms' postings. Version 5 keeps the text field (the terms of the
// embedded text) the same way instead of as a table of document
// frequencies and each entry's term counts, which ski-rank turned into
// ~200 maps on every prompt. Version 6 moved the intents' concepts (a
// text and a query vector each) from the JSON header into the table.
// Version 7 checksums the header too, so that a byte flipped anywhere in
// the file is found, keeps the vectors as half-precision floats in one
// block after the entries, and
// stores the BM25 fields' postings as varints: an index of 10,000 skills
// is about half the size, and ranking reads the vectors in place. Version
// 8 splits the table into sections with a checksum each, indexes the
// entries and keeps the names skills are mentioned by, so that ranking
// decodes only the entries it keeps and checks only the bytes it reads
// (the BM25 fields check each term's postings as it is looked up): with
// 10,000 skills, checking the whole 17 MB table and decoding every entry
// had cost ~3.5 ms of a ~6 ms ranking. Version 9 keeps a hash of each
// name instead of the name (a lookup confirms it on the entries, which
// hold the names anyway) and one checksum per block of BM25 terms instead
// of per term: 0.5 MB less for 10,000 skills.
package vecfile

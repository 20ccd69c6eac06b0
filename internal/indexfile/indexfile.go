// Package indexfile reads and writes whole index files: package vecfile's
// format with the skill records compressed into one zstd frame. Programs
// that read only what ranking needs (vecfile.ReadRanking, vecfile.ReadHeader)
// use vecfile alone and link no compressor.
package indexfile

import (
	"github.com/klauspost/compress/zstd"

	"github.com/skill-inject/ski/internal/vecfile"
)

// maxRecords bounds what a corrupt frame can make the reader allocate.
const maxRecords = 1 << 30

// Read loads the whole index at path (see vecfile.Read).
func Read(path string) (*vecfile.Index, error) { return vecfile.Read(path, Zstd{}) }

// Write stores idx at path atomically (see vecfile.Write).
func Write(path string, idx *vecfile.Index) error { return vecfile.Write(path, idx, Zstd{}) }

// Zstd is the records codec of ski's index files: one zstd frame.
type Zstd struct{}

// Compress packs the records into one frame. The level is zstd's
// "better", not its best: on 10,000 skills (9.2 MB of records) best took
// 392 ms to make 1,174 kB, better 104 ms for 1,181 kB, and each change to a
// catalog writes two indexes (the lexical one and the model's).
func (Zstd) Compress(plain []byte) ([]byte, error) {
	zw, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBetterCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer zw.Close()
	return zw.EncodeAll(plain, nil), nil
}

// Decompress unpacks a frame made by Compress.
func (Zstd) Decompress(packed string) (string, error) {
	zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxMemory(maxRecords))
	if err != nil {
		return "", err
	}
	defer zr.Close()
	plain, err := zr.DecodeAll([]byte(packed), nil)
	if err != nil {
		return "", err
	}
	return string(plain), nil
}

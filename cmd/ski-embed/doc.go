// Ski-embed turns text into vectors: skill records into the vector index
// (--index), prompt events into query records (--query), and keeps automatic
// indexes fresh (--refresh). Run "ski-embed --help" for the manual, which is
// usage.txt in this directory.
package main

import _ "embed"

//go:embed usage.txt
var usage string

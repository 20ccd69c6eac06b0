// Ski-rank scores every skill of the index against each query record and
// writes candidate records, best first. Run "ski-rank --help" for the
// manual, which is usage.txt in this directory.
package main

import _ "embed"

//go:embed usage.txt
var usage string

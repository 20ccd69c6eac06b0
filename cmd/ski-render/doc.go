// Ski-render turns selection records into the payload Claude Code or the
// opencode plugin reads. Run "ski-render --help" for the manual, which is
// usage.txt in this directory.
package main

import _ "embed"

//go:embed usage.txt
var usage string

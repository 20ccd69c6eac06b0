// Ski-install wires ski's hook scripts into Claude Code and opencode, and
// takes them out again. Run "ski-install --help" for the manual, which is
// usage.txt in this directory.
package main

import _ "embed"

//go:embed usage.txt
var usage string

// Ski-select applies the gates to ranked candidates and writes selection
// records saying what to inject, suggest or leave to the host. Run
// "ski-select --help" for the manual, which is usage.txt in this directory.
package main

import _ "embed"

//go:embed usage.txt
var usage string

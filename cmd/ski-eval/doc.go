// Ski-eval measures how well ski picks skills on a labelled set of prompts.
// Run "ski-eval --help" for the manual, which is usage.txt in this directory.
package main

import _ "embed"

//go:embed usage.txt
var usage string

// Package spawn starts detached processes: the embed server a hook starts on
// its way out, and the index builders. A detached process runs in a session
// of its own and shares none of its starter's descriptors, so a host waiting
// for a hook's output never waits for it.
package spawn

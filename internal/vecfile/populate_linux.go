package vecfile

import "syscall"

// mapPopulate has the kernel map every page of an index at once, for a
// read of all of them: one call costs far less than a fault per page
// (10,000 skills: ~5,000 pages).
const mapPopulate = syscall.MAP_POPULATE

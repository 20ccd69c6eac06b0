package vecfile

import "syscall"

// mapPopulate has the kernel map every page of an index at once: ranking
// reads most of them, and one call costs far less than a fault per page
// (10,000 skills: ~5,000 pages).
const mapPopulate = syscall.MAP_POPULATE

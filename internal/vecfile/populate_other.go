//go:build unix && !linux

package vecfile

const mapPopulate = 0

package reader

// The shipped reader model file (models/ski-reader-v1.onnx), pinned.
const (
	modelSHA256 = ""
	modelSize   = 0
)

package reader

// The shipped reader model file (models/ski-reader-v1.onnx), pinned.
const (
	modelSHA256 = "e008c337f0e3211845857eee9cbd94ca83c9fedd3931d1f2e7a329f5f120cc8a"
	modelSize   = 17416263
)

package reader

// The shipped reader model: its id (its file is models/<id>.onnx, installed
// by scripts/setup.sh into the models folder <id>/), pinned.
const (
	modelID     = "ski-reader-v4"
	modelSHA256 = "c90824b4a725bdbea3dd7554618e8fc86e2aa1df34b5e7c48a44a2cede69006d"
	modelSize   = 17416263
)

package reader

// The shipped reader model: its id (its file is models/<id>.onnx, installed
// by scripts/setup.sh into the models folder <id>/), pinned.
const (
	modelID     = "ski-reader-v3"
	modelSHA256 = "726fb0363239824ab8a8620c9ca39718845bb5842d026b230d080edeb6cdab7f"
	modelSize   = 17416263
)

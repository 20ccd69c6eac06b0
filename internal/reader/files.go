package reader

// The shipped reader model: its id (its file is models/<id>.onnx, installed
// by scripts/setup.sh into the models folder <id>/), pinned.
const (
	modelID     = "ski-reader-v2"
	modelSHA256 = "fe05a62e4562a49ccc1ee95ccc0b21f5ff06dd1ce27a6db87467c7792663e209"
	modelSize   = 17416263
)

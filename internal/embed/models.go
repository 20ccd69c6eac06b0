package embed

// The ONNX model files are those of the langchain4j embedding jars on Maven
// Central (dev.langchain4j:langchain4j-embeddings-*:1.20.0-beta30), which
// take them from the Xenova ONNX exports on Hugging Face; docs/models.md has
// the provenance and licences.
const (
	bgeTokenizerSHA  = "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"
	miniTokenizerSHA = "da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0"
	bgePrefix        = "Represent this sentence for searching relevant passages: "
)

func files(onnxSHA string, onnxSize int64, hfONNX, tokSHA string, tokSize int64) []File {
	return []File{
		{Name: "model.onnx", SHA256: onnxSHA, Size: onnxSize, HFPath: hfONNX},
		{Name: "tokenizer.json", SHA256: tokSHA, Size: tokSize, HFPath: "tokenizer.json"},
	}
}

// onnxModels is the table of ONNX models ski knows; package onnx runs them.
var onnxModels = []Model{
	{
		ID: "bge-small-en-v1.5-q", Backend: "onnx", Dim: 384, Pooling: "cls", MaxTokens: 512,
		QueryPrefix: bgePrefix, Quantised: true,
		Files:  files("6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4", 34014426, "onnx/model_quantized.onnx", bgeTokenizerSHA, 711396),
		HFRepo: "Xenova/bge-small-en-v1.5", HFRevision: "main",
		MinSimilarity: 0.71, InjectSimilarity: 0.77, ScoreMargin: 0.04, KeywordBoost: 0.05, LexicalWeight: 0.012,
		BodyWeight: 0.012, IntentBoost: 0.5, SmallEditPenalty: 0.10,
		InjectConfidence: 0.70, SuggestConfidence: 0.38,
	},
	{
		ID: "bge-small-en-v1.5", Backend: "onnx", Dim: 384, Pooling: "cls", MaxTokens: 512,
		QueryPrefix: bgePrefix,
		Files:       files("828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35", 133093490, "onnx/model.onnx", bgeTokenizerSHA, 711396),
		HFRepo:      "Xenova/bge-small-en-v1.5", HFRevision: "main",
		MinSimilarity: 0.71, InjectSimilarity: 0.77, ScoreMargin: 0.04, KeywordBoost: 0.05, LexicalWeight: 0.012,
		BodyWeight: 0.012, IntentBoost: 0.5, SmallEditPenalty: 0.10,
		InjectConfidence: 0.70, SuggestConfidence: 0.35,
	},
	{
		ID: "all-MiniLM-L6-v2-q", Backend: "onnx", Dim: 384, Pooling: "mean", MaxTokens: 256, Quantised: true,
		Files:  files("afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1", 22972370, "onnx/model_quantized.onnx", miniTokenizerSHA, 711661),
		HFRepo: "Xenova/all-MiniLM-L6-v2", HFRevision: "main",
		MinSimilarity: 0.48, InjectSimilarity: 0.54, ScoreMargin: 0.05, KeywordBoost: 0.05, LexicalWeight: 0.016,
		BodyWeight: 0.006, SmallEditPenalty: 0.10,
		InjectConfidence: 0.63, SuggestConfidence: 0.43,
	},
	{
		ID: "all-MiniLM-L6-v2", Backend: "onnx", Dim: 384, Pooling: "mean", MaxTokens: 256,
		Files:  files("759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e", 90387606, "onnx/model.onnx", miniTokenizerSHA, 711661),
		HFRepo: "Xenova/all-MiniLM-L6-v2", HFRevision: "main",
		MinSimilarity: 0.48, InjectSimilarity: 0.54, ScoreMargin: 0.05, KeywordBoost: 0.05, LexicalWeight: 0.016,
		BodyWeight: 0.006, SmallEditPenalty: 0.10,
		InjectConfidence: 0.61, SuggestConfidence: 0.44,
	},
}

func init() {
	for _, m := range onnxModels {
		models[m.ID] = m
	}
}

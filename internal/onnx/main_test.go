package onnx

import (
	"os"
	"testing"

	"github.com/skill-inject/ski/internal/testhome"
)

// The tests load the installed models, and keep their optimised copies in a
// home of their own.
func TestMain(m *testing.M) { os.Exit(testhome.Run(m)) }

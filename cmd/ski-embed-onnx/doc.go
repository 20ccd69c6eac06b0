/*
Ski-embed-onnx is ski-embed with the model runtime (ONNX Runtime and the
tokenizer) linked in. ski-embed hands it every run that loads a model in
process: index builds, refreshes, the embed server, --fetch, and queries
when no server answers. It takes the same flags ("ski-embed --help" is the
manual); run it directly only to debug.
*/
package main

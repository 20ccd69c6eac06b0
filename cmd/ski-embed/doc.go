// Ski-embed turns text into vectors: skill records into the vector index
// (--index), prompt events into query records (--query), and keeps automatic
// indexes fresh (--refresh). Run "ski-embed --help" for the manual, which is
// internal/embedcmd/usage.txt.
//
// This binary is pure Go and starts fast: it answers prompt queries through
// a running embed server and hands everything that needs the model runtime
// to ski-embed-onnx, installed beside it, by exec.
package main

"""minilm.py: the all-MiniLM-L6-v2 weights scripts/setup.sh installs (the
ONNX graph langchain4j publishes on Maven Central), as a trainable PyTorch
BERT; and the pair encoding ski's reader uses. Development only."""
import hashlib
import os

import numpy as np
import onnx
from onnx import numpy_helper
import torch
from tokenizers import Tokenizer
from transformers import BertConfig, BertModel

DATA = os.environ.get("XDG_DATA_HOME", os.path.expanduser("~/.local/share"))
MODELS = os.path.join(DATA, "ski", "models")  # where scripts/setup.sh installs the models
MODEL_DIR = os.path.join(MODELS, "all-MiniLM-L6-v2")
BGE_DIR = os.path.join(MODELS, "bge-small-en-v1.5")  # the other base a reader may start from
CLS, SEP = 101, 102  # the BERT uncased vocabulary's special tokens
PROMPT_TOKENS, SKILL_TOKENS = 40, 64  # each side cut to at most this many word pieces


def config(layers=6):
    return BertConfig(vocab_size=30522, hidden_size=384, num_hidden_layers=layers, num_attention_heads=12,
                      intermediate_size=1536, max_position_embeddings=512, type_vocab_size=2,
                      hidden_act="gelu", layer_norm_eps=1e-12, add_pooling_layer=False)


def onnx_state(path, prefixes):
    """The PyTorch state of the ONNX graph at path: its initializers named
    with one of prefixes by name, and its MatMul weights (anonymous in an
    exported graph) by the node that reads them, transposed."""
    m = onnx.load(path)
    init = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    state = {k: v for k, v in init.items() if k.startswith(prefixes)}
    for node in m.graph.node:
        if node.op_type != "MatMul":
            continue
        for x in node.input:
            if x in init and x.startswith("onnx::"):
                # /encoder/layer.0/attention/self/query/MatMul -> encoder.layer.0.attention.self.query.weight
                path = node.name.strip("/").rsplit("/", 1)[0].replace("/", ".")
                state[path + ".weight"] = init[x].T
    return state


def load_weights(module, state):
    """Puts state (arrays by PyTorch name) into module; fails when a weight
    is missing or left over (the position ids, a buffer, aside)."""
    sd = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in state.items() if not k.endswith("position_ids")}
    missing, unexpected = module.load_state_dict(sd, strict=False)
    missing = [k for k in missing if not k.endswith("position_ids")]
    if missing or unexpected:
        raise RuntimeError(f"weights: missing {missing}, unexpected {unexpected}")


def load_bert(layers=6, model_dir=MODEL_DIR, total=6):
    """A BertModel holding the weights of the ONNX graph in model_dir (one
    of `total` layers; its first `layers` kept): named initializers map by
    name, the MatMul weights (anonymous in the graph) by the node that
    reads them, transposed."""
    state = onnx_state(os.path.join(model_dir, "model.onnx"), ("embeddings.", "encoder."))
    bert = BertModel(config(total), add_pooling_layer=False)
    load_weights(bert, state)
    if layers < total:
        bert.encoder.layer = bert.encoder.layer[:layers]
        bert.config.num_hidden_layers = layers
    return bert


def tokenizer(model_dir=MODEL_DIR):
    """The model's tokenizer without the padding and truncation its file
    asks for (every input padded to 128): the reader cuts each side
    itself, as ski's Go reader does."""
    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    return tok


def encode_pair(tok, prompt, skill):
    """[CLS] prompt [SEP] skill [SEP], each side encoded alone and cut to its
    budget, type ids 0 then 1: what ski's Go reader builds."""
    a = tok.encode(prompt, add_special_tokens=False).ids[:PROMPT_TOKENS]
    b = tok.encode(skill, add_special_tokens=False).ids[:SKILL_TOKENS]
    ids = [CLS] + a + [SEP] + b + [SEP]
    types = [0] * (len(a) + 2) + [1] * (len(b) + 1)
    return ids, types


def batch(tok, pairs):
    """Padded int64 arrays (ids, mask, types) for (prompt, skill) pairs."""
    enc = [encode_pair(tok, p, s) for p, s in pairs]
    n = max(len(i) for i, _ in enc)
    ids = np.zeros((len(enc), n), np.int64)
    mask = np.zeros((len(enc), n), np.int64)
    types = np.zeros((len(enc), n), np.int64)
    for r, (i, t) in enumerate(enc):
        ids[r, :len(i)], mask[r, :len(i)], types[r, :len(t)] = i, 1, t
    return ids, mask, types


def sha256(path):
    """A file's sha256, hex."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()

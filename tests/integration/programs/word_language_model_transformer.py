# Follows pytorch/examples word_language_model with --model Transformer (nn.Transformer subclass, causal mask
# from torch.log(torch.tril(ones)), PositionalEncoding); the model and loop are in _word_lm.py.
import torch

from _word_lm import run

run("Transformer")
print("word language model (Transformer): ok", torch.__name__)

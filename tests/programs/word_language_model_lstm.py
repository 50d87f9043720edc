# Follows pytorch/examples word_language_model with --model LSTM (the model and loop are in _word_lm.py).
import torch

from _word_lm import run

run("LSTM")
print("word language model (LSTM): ok", torch.__name__)

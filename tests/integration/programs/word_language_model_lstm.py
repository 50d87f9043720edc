# Follows pytorch/examples word_language_model with --model LSTM (the model and loop are in _word_lm.py).
import torch

from _word_lm import run

run("LSTM", lr=5.0)  # the example's lr 20 is tuned for its 40-epoch Wikitext-2 run
print("word language model (LSTM): ok", torch.__name__)

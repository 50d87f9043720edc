# Follows PyTorch's intermediate tutorial "NLP From Scratch: Classifying Names with a Character-Level RNN":
# one-hot letter tensors (lineToTensor), a CharRNN of nn.RNN + Linear + LogSoftmax over the final hidden state,
# NLLLoss, SGD, then a GRU variant. Synthetic names from three "languages" with their own letter habits.
import random
import string

import torch
from torch import nn

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)
random.seed(0)
torch.manual_seed(0)

languages = {"Vowelish": "aeiouy", "Consonantal": "bcdfgkrst", "Zedish": "zxqjvw"}
all_categories = list(languages)


def make_name(cat):
    letters = languages[cat]
    n = random.randint(3, 8)
    name = "".join(
        random.choice(letters) if random.random() < 0.8 else random.choice(string.ascii_lowercase)
        for _ in range(n)
    )
    return name.capitalize()


def letterToIndex(letter):
    return all_letters.find(letter)


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, cell=nn.RNN):
        super().__init__()
        self.rnn = cell(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        output = self.h2o(hidden[0])
        output = self.softmax(output)
        return output


def label_from_output(output, output_labels):
    top_n, top_i = output.topk(1)
    label_i = top_i[0].item()
    return output_labels[label_i], label_i


def train_and_score(cell):
    rnn = CharRNN(n_letters, 64, len(all_categories), cell)
    criterion = nn.NLLLoss()
    optimizer = torch.optim.SGD(rnn.parameters(), lr=0.05)
    data = [(c, make_name(c)) for c in all_categories for _ in range(150)]
    random.shuffle(data)
    losses = []
    for epoch in range(3):
        rnn.train()
        total = 0.0
        for i in range(0, len(data), 16):
            batch = data[i : i + 16]
            rnn.zero_grad()
            batch_loss = 0
            for cat, name in batch:
                output = rnn(lineToTensor(name))
                label = torch.tensor([all_categories.index(cat)], dtype=torch.long)
                batch_loss = batch_loss + criterion(output, label)
            batch_loss.backward()
            nn.utils.clip_grad_norm_(rnn.parameters(), 3)
            optimizer.step()
            total += batch_loss.item()
        losses.append(total / len(data))
        print(cell.__name__, "epoch", epoch, "loss", losses[-1])
    rnn.eval()
    correct = 0
    tests = [(c, make_name(c)) for c in all_categories for _ in range(30)]
    with torch.no_grad():
        for cat, name in tests:
            guess, _ = label_from_output(rnn(lineToTensor(name)), all_categories)
            correct += guess == cat
    acc = correct / len(tests)
    print(cell.__name__, "accuracy", acc)
    assert losses[-1] < losses[0] and acc > 0.7, (losses, acc)


assert lineToTensor("Jones").size() == (5, 1, n_letters)
train_and_score(nn.RNN)
train_and_score(nn.GRU)
print("char rnn classification: ok")

# Follows pytorch/examples time_sequence_prediction: a Sequence model of two stacked nn.LSTMCell and a Linear
# head, trained on phase-shifted sine waves with optim.LBFGS (lr 0.8, the example's), then asked to extrapolate
# `future` steps. Fewer sequences and steps than the example's 15, so it runs in seconds.
import numpy as np
import torch
from torch import nn, optim


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 51, dtype=input.dtype)
        c_t = torch.zeros(input.size(0), 51, dtype=input.dtype)
        h_t2 = torch.zeros(input.size(0), 51, dtype=input.dtype)
        c_t2 = torch.zeros(input.size(0), 51, dtype=input.dtype)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


# generate_sine_wave.py, smaller: 40 waves of length 200
np.random.seed(2)
T, L, N = 20, 200, 40
x = np.empty((N, L), "int64")
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype("float64")

torch.manual_seed(0)
input = torch.from_numpy(data[3:, :-1])
target = torch.from_numpy(data[3:, 1:])
test_input = torch.from_numpy(data[:3, :-1])
test_target = torch.from_numpy(data[:3, 1:])
seq = Sequence().double()
criterion = nn.MSELoss()
optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
with torch.no_grad():
    loss0 = criterion(seq(test_input), test_target).item()
for i in range(2):

    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        loss.backward()
        return loss

    loss = optimizer.step(closure)
    print("STEP:", i, "loss:", float(loss))
future = 50
with torch.no_grad():
    pred = seq(test_input, future=future)
    loss = criterion(pred[:, :-future], test_target)
    print("test loss:", loss.item(), "from", loss0)
assert pred.shape == (3, L - 1 + future)
assert loss.item() < 0.1 * loss0, (loss0, loss.item())
print("time sequence prediction: ok")

# Follows PyTorch's "(Prototype) MaskedTensor Advanced Semantics" tutorial (prototype/maskedtensor_advanced_semantics):
# MaskedTensor against NumPy's MaskedArray (inverted masks, no intersection semantics: binary ops need matching
# masks), explicit intersection through to_tensor and the masks, and the reductions along a dim ignoring masked-out
# elements. Adapted: a fixed mask (one row fully masked out) in place of torch.randint's, so that the output
# compares line by line with PyTorch's (our generator's stream is not PyTorch's); the value a notebook cell
# displays (its last bare expression) is printed. Asserts added for what the tutorial's text says each result shows.
import warnings

import numpy as np
import torch
from torch.masked import masked_tensor

# Disable prototype warnings and such
warnings.filterwarnings(action="ignore", category=UserWarning)

# ---- MaskedTensor vs NumPy's MaskedArray
data = torch.arange(5.0)
mask = torch.tensor([True, True, False, True, False])
npm0 = np.ma.masked_array(data.numpy(), (~mask).numpy())
npm1 = np.ma.masked_array(data.numpy(), (mask).numpy())

print("npm0:\n", npm0)
print("npm1:\n", npm1)
print("npm0 + npm1:\n", npm0 + npm1)

mt0 = masked_tensor(data, mask)
mt1 = masked_tensor(data, ~mask)
print("mt0:\n", mt0)
print("mt1:\n", mt1)

failed = False
try:
    mt0 + mt1
except ValueError as e:
    print("mt0 + mt1 failed. Error: ", e)
    failed = True
assert failed  # masks that differ are refused, not intersected

t0 = mt0.to_tensor(0)
t1 = mt1.to_tensor(0)
mt2 = masked_tensor(t0 + t1, mt0.get_mask() & mt1.get_mask())

print("t0:\n", t0)
print("t1:\n", t1)
print("mt2 (t0 + t1):\n", mt2)
assert torch.equal(t0 + t1, data) and not mt2.get_mask().any()

# ---- reduction semantics
data = torch.arange(12, dtype=torch.float).reshape(3, 4)
mask = torch.tensor([[True, False, True, True], [False, False, False, False], [False, True, True, False]])
mt = masked_tensor(data, mask)

print("data:\n", data)
print("mask:\n", mask)
print("mt:\n", mt)

print("torch.sum:\n", torch.sum(mt, 1))
print("torch.mean:\n", torch.mean(mt, 1))
print("torch.prod:\n", torch.prod(mt, 1))
print("torch.amin:\n", torch.amin(mt, 1))
print("torch.amax:\n", torch.amax(mt, 1))
# the reductions skip the masked-out elements; the fully masked-out row is masked out in the result
assert torch.sum(mt, 1).get_data()[[0, 2]].tolist() == [0.0 + 2 + 3, 9.0 + 10]
assert torch.amin(mt, 1).get_mask().tolist() == [True, False, True]
assert torch.mean(mt, 1).get_data()[2].item() == 9.5

data0 = torch.arange(10.0).reshape(2, 5)
data1 = torch.arange(10.0).reshape(2, 5) + 10
mask0 = torch.tensor([[True, True, False, False, False], [False, False, False, True, True]])
mask1 = torch.tensor([[False, False, False, True, True], [True, True, False, False, False]])
npm0 = np.ma.masked_array(data0.numpy(), (mask0).numpy())
npm1 = np.ma.masked_array(data1.numpy(), (mask1).numpy())

print("npm0:", npm0)
print("npm1:", npm1)

print("(npm0 + npm1).sum(0):\n", (npm0 + npm1).sum(0))
print("npm0.sum(0) + npm1.sum(0):\n", npm0.sum(0) + npm1.sum(0))

mt0 = masked_tensor(data0, ~mask0)
mt1 = masked_tensor(data1, ~mask1)

total = (mt0.to_tensor(0) + mt1.to_tensor(0)).sum(0)
print(total)
# filled with zeros explicitly, the sum of the sum is the sum of the sums
assert torch.equal(total, mt0.to_tensor(0).sum(0) + mt1.to_tensor(0).sum(0))
print("maskedtensor advanced semantics: ok")

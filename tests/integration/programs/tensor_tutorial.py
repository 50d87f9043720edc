# Follows PyTorch's beginner tutorial "Tensors" (blitz/tensor_tutorial): creation, attributes, ops, NumPy bridge.
import numpy as np
import torch

data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
np_array = np.array(data)
x_np = torch.from_numpy(np_array)
assert torch.equal(x_data, x_np)

x_ones = torch.ones_like(x_data)
x_rand = torch.rand_like(x_data, dtype=torch.float)
assert x_ones.dtype == torch.int64 and x_rand.dtype == torch.float32
assert ((x_rand >= 0) & (x_rand < 1)).all()

shape = (2, 3)
rand_tensor = torch.rand(shape)
ones_tensor = torch.ones(shape)
zeros_tensor = torch.zeros(shape)
assert rand_tensor.shape == ones_tensor.shape == zeros_tensor.shape == torch.Size([2, 3])

tensor = torch.rand(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")
assert str(tensor.device) == "cpu"
if torch.cuda.is_available():
    tensor = tensor.to("cuda")

tensor = torch.ones(4, 4)
print(f"First row: {tensor[0]}")
print(f"First column: {tensor[:, 0]}")
print(f"Last column: {tensor[..., -1]}")
tensor[:, 1] = 0
assert tensor[:, 1].sum().item() == 0 and tensor.sum().item() == 12

t1 = torch.cat([tensor, tensor, tensor], dim=1)
assert t1.shape == (4, 12)

y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(y1)
torch.matmul(tensor, tensor.T, out=y3)
assert torch.allclose(y1, y2) and torch.allclose(y1, y3)
np.testing.assert_allclose(y1.numpy(), tensor.numpy() @ tensor.numpy().T)

z1 = tensor * tensor
z2 = tensor.mul(tensor)
z3 = torch.rand_like(tensor)
torch.mul(tensor, tensor, out=z3)
assert torch.equal(z1, z2) and torch.equal(z1, z3)

agg = tensor.sum()
agg_item = agg.item()
assert isinstance(agg_item, float) and agg_item == 12.0

tensor.add_(5)
assert tensor[0, 0].item() == 6 and tensor[0, 1].item() == 5

t = torch.ones(5)
n = t.numpy()
t.add_(1)
assert (n == 2).all()  # the NumPy array shares memory with the tensor
n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
assert t.tolist() == [2.0] * 5
print("tensor tutorial: ok")

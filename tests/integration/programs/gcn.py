# The graph convolutional network of pytorch/examples (gcn/main.py, Kipf & Welling's "Semi-Supervised
# Classification with Graph Convolutional Networks"): the renormalized adjacency D^-1/2 (A + I) D^-1/2 built with
# torch.sparse_coo_tensor, to_sparse() and sparse @ dense products, sparse node features, torch.spmm in the layer.
# The Cora download is replaced by a synthetic citation graph of two communities written in Cora's file format
# (cora.content: id, binary word features, label; cora.cites: id pairs), so load_cora reads it unchanged; the
# words say little about a paper's community and the citations a lot, so the GCN must use the graph to score
# well above chance.
import argparse
import os
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.optim import Adam


class GraphConv(nn.Module):
    """
    Graph Convolutional Layer described in "Semi-Supervised Classification with Graph Convolutional Networks".

        H' = f(D^(-1/2) * A * D^(-1/2) * H * W)
    """

    def __init__(self, input_dim, output_dim, use_bias=False):
        super(GraphConv, self).__init__()

        # Initialize the weight matrix W (in this case called `kernel`)
        self.kernel = nn.Parameter(torch.Tensor(input_dim, output_dim))
        nn.init.xavier_normal_(self.kernel)  # Initialize the weights using Xavier initialization

        # Initialize the bias (if use_bias is True)
        self.bias = None
        if use_bias:
            self.bias = nn.Parameter(torch.Tensor(output_dim))
            nn.init.zeros_(self.bias)  # Initialize the bias to zeros

    def forward(self, input_tensor, adj_mat):
        support = torch.mm(input_tensor, self.kernel)  # Matrix multiplication between input and weight matrix
        output = torch.spmm(
            adj_mat, support
        )  # Sparse matrix multiplication between adjacency matrix and support
        # Add the bias (if bias is not None)
        if self.bias is not None:
            output = output + self.bias

        return output


class GCN(nn.Module):
    """Two graph convolutional layers, ReLU and dropout between them, log-softmax over the classes."""

    def __init__(self, input_dim, hidden_dim, output_dim, use_bias=True, dropout_p=0.1):
        super(GCN, self).__init__()

        # Define the Graph Convolution layers
        self.gc1 = GraphConv(input_dim, hidden_dim, use_bias=use_bias)
        self.gc2 = GraphConv(hidden_dim, output_dim, use_bias=use_bias)

        # Define the dropout layer
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input_tensor, adj_mat):
        # Perform the first graph convolutional layer
        x = self.gc1(input_tensor, adj_mat)
        x = F.relu(x)  # Apply ReLU activation function
        x = self.dropout(x)  # Apply dropout regularization

        # Perform the second graph convolutional layer
        x = self.gc2(x, adj_mat)

        # Apply log-softmax activation function for classification
        return F.log_softmax(x, dim=1)


def load_cora(path="./cora", device="cpu"):
    """
    The graph convolutional operation rquires the normalized adjacency matrix: D^(-1/2) * A * D^(-1/2).
    """

    # Set the paths to the data files
    content_path = os.path.join(path, "cora.content")
    cites_path = os.path.join(path, "cora.cites")

    # Load data from files
    content_tensor = np.genfromtxt(content_path, dtype=np.dtype(str))
    cites_tensor = np.genfromtxt(cites_path, dtype=np.int32)

    # Process features
    features = torch.FloatTensor(content_tensor[:, 1:-1].astype(np.int32))  # Extract feature values
    scale_vector = torch.sum(features, dim=1)  # Compute sum of features for each node
    scale_vector = 1 / scale_vector  # Compute reciprocal of the sums
    scale_vector[scale_vector == float("inf")] = 0  # Handle division by zero cases
    scale_vector = torch.diag(
        scale_vector
    ).to_sparse()  # Convert the scale vector to a sparse diagonal matrix
    features = scale_vector @ features  # Scale the features using the scale vector

    # Process labels
    classes, labels = np.unique(content_tensor[:, -1], return_inverse=True)  # Extract unique classes
    labels = torch.LongTensor(labels)  # Convert labels to a tensor

    # Process adjacency matrix
    idx = content_tensor[:, 0].astype(np.int32)  # Extract node indices
    idx_map = {id: pos for pos, id in enumerate(idx)}  # Create a dictionary to map indices to positions

    # Map node indices to positions in the adjacency matrix
    edges = np.array(
        list(map(lambda edge: [idx_map[edge[0]], idx_map[edge[1]]], cites_tensor)),  # noqa: C417
        dtype=np.int32,
    )

    V = len(idx)  # Number of nodes
    E = edges.shape[0]  # Number of edges
    adj_mat = torch.sparse_coo_tensor(
        edges.T, torch.ones(E), (V, V), dtype=torch.int64
    )  # the adjacency matrix
    adj_mat = torch.eye(V) + adj_mat  # Add self-loops to the adjacency matrix

    degree_mat = torch.sum(
        adj_mat, dim=1
    )  # Compute the sum of each row in the adjacency matrix (degree matrix)
    degree_mat = torch.sqrt(1 / degree_mat)  # Compute the reciprocal square root of the degrees
    degree_mat[degree_mat == float("inf")] = 0  # Handle division by zero cases
    degree_mat = torch.diag(degree_mat).to_sparse()  # Convert the degree matrix to a sparse diagonal matrix

    adj_mat = degree_mat @ adj_mat @ degree_mat  # Apply the renormalization trick

    return features.to_sparse().to(device), labels.to(device), adj_mat.to_sparse().to(device)


def write_synthetic_cora(path, n_nodes=600, n_words=60, seed=0):
    """Two communities of papers: dense citations inside a community, few across; each paper has 6 words, drawn
    with 60% probability from its community's half of the vocabulary (a weak signal on its own)."""
    rng = np.random.default_rng(seed)
    os.makedirs(path, exist_ok=True)
    labels = rng.integers(0, 2, n_nodes)
    ids = rng.permutation(np.arange(1000, 1000 + 10 * n_nodes, 10))  # paper ids are not positions, as in Cora
    half = n_words // 2
    words = np.zeros((n_nodes, n_words), dtype=np.int32)
    for i in range(n_nodes):
        own = rng.random(6) < 0.6
        lo = np.where(own, labels[i] * half, (1 - labels[i]) * half)
        words[i, lo + rng.integers(0, half, 6)] = 1
    names = np.array(["Case_Based", "Neural_Networks"])
    with open(os.path.join(path, "cora.content"), "w") as f:
        for i in range(n_nodes):
            f.write("\t".join([str(ids[i]), *map(str, words[i]), names[labels[i]]]) + "\n")
    same = labels[:, None] == labels[None, :]
    p = np.where(same, 0.02, 0.002)
    a, b = np.nonzero(np.triu(rng.random((n_nodes, n_nodes)) < p, 1))
    with open(os.path.join(path, "cora.cites"), "w") as f:
        for i, j in zip(a, b):
            f.write(f"{ids[i]}\t{ids[j]}\n{ids[j]}\t{ids[i]}\n")  # both directions: the graph is undirected


def train_iter(epoch, model, optimizer, criterion, input, target, mask_train, mask_val, print_every=10):
    start_t = time.time()
    model.train()
    optimizer.zero_grad()

    # Forward pass
    output = model(*input)
    loss = criterion(output[mask_train], target[mask_train])  # Compute the loss using the training mask

    loss.backward()
    optimizer.step()

    # Evaluate the model performance on training and validation sets
    loss_train, acc_train = test(model, criterion, input, target, mask_train)
    loss_val, acc_val = test(model, criterion, input, target, mask_val)

    if epoch % print_every == 0:
        # Print the training progress at specified intervals
        print(
            f"Epoch: {epoch:04d} ({(time.time() - start_t):.4f}s) loss_train: {loss_train:.4f} "
            f"acc_train: {acc_train:.4f} loss_val: {loss_val:.4f} acc_val: {acc_val:.4f}"
        )
    return loss_train


def test(model, criterion, input, target, mask):
    model.eval()
    with torch.no_grad():
        output = model(*input)
        output, target = output[mask], target[mask]

        loss = criterion(output, target)
        acc = (output.argmax(dim=1) == target).float().sum() / len(target)
    return loss.item(), acc.item()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="PyTorch Graph Convolutional Network")
    parser.add_argument("--epochs", type=int, default=100, help="number of epochs to train (default: 100)")
    parser.add_argument("--lr", type=float, default=0.01, help="learning rate (default: 0.01)")
    parser.add_argument("--l2", type=float, default=5e-4, help="weight decay (default: 5e-4)")
    parser.add_argument("--dropout-p", type=float, default=0.5, help="dropout probability (default: 0.5)")
    parser.add_argument("--hidden-dim", type=int, default=16, help="dimension of the hidden representation")
    parser.add_argument("--val-every", type=int, default=20, help="epochs between progress prints")
    parser.add_argument("--include-bias", action="store_true", default=False, help="use bias in convolutions")
    parser.add_argument("--device", type=str, default="cpu", help="backend device")
    parser.add_argument("--seed", type=int, default=42, metavar="S", help="random seed (default: 42)")
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else args.device)
    print(f"Using {device} device")

    with tempfile.TemporaryDirectory() as tmp:
        write_synthetic_cora(os.path.join(tmp, "cora"))
        print("Loading dataset...")
        features, labels, adj_mat = load_cora(os.path.join(tmp, "cora"), device=device)
    assert adj_mat.is_sparse and features.is_sparse and adj_mat.layout == torch.sparse_coo
    # each row of D^-1/2 (A + I) D^-1/2 over the degrees: the renormalized adjacency is symmetric
    dense_adj = adj_mat.to_dense()
    assert torch.allclose(dense_adj, dense_adj.t(), atol=1e-6)

    idx = torch.randperm(len(labels)).to(device)
    idx_test, idx_val, idx_train = idx[:300], idx[300:400], idx[400:]

    gcn = GCN(
        features.shape[1], args.hidden_dim, labels.max().item() + 1, args.include_bias, args.dropout_p
    ).to(device)
    optimizer = Adam(gcn.parameters(), lr=args.lr, weight_decay=args.l2)
    criterion = nn.NLLLoss()

    losses = []
    for epoch in range(args.epochs):
        losses.append(
            train_iter(
                epoch + 1,
                gcn,
                optimizer,
                criterion,
                (features, adj_mat),
                labels,
                idx_train,
                idx_val,
                args.val_every,
            )
        )

    loss_test, acc_test = test(gcn, criterion, (features, adj_mat), labels, idx_test)
    print(f"Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}")
    # the same network without the graph (the identity as adjacency) sees only the weak word signal
    eye = torch.eye(len(labels), device=device).to_sparse()
    loss_nograph, acc_nograph = test(gcn, criterion, (features, eye), labels, idx_test)
    print(f"Without the citations: accuracy {acc_nograph:.4f}")
    assert losses[-1] < losses[0] - 0.2, (losses[0], losses[-1])
    assert acc_test > 0.85, acc_test  # chance is 0.5
    assert acc_test > acc_nograph + 0.1, (acc_test, acc_nograph)
    print("gcn: ok")

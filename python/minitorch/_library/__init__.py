"""The machinery behind torch.library and torch.ops: operator schemas (`schema`), the operator registry and the
torch.ops namespaces (`ops`), and the custom_op decorator's objects (`custom_ops`)."""

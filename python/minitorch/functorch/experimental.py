"""functorch.experimental: chunk_vmap, replace_all_batch_norm_modules_, and torch.func's functionalize, hessian,
jacfwd and jvp (without the FutureWarning of their top-level functorch spellings), as PyTorch 2.15 ships it."""

from minitorch.func import functionalize, hessian, jacfwd, jvp, replace_all_batch_norm_modules_
from minitorch.func._vmap import chunk_vmap

__all__ = ["chunk_vmap", "functionalize", "hessian", "jacfwd", "jvp", "replace_all_batch_norm_modules_"]

"""torch._dynamo.backends.common: the helpers custom torch.compile backends are built from -- aot_autograd (a
backend that splits the captured graph into forward and backward graphs with AOTAutograd and hands each to its
compiler) and fake_tensor_unsupported."""

import functools

__all__ = ["aot_autograd", "fake_tensor_unsupported"]


def aot_autograd(**kwargs):
    """A backend (gm, example_inputs) -> callable running gm through functorch.compile.aot_module_simplified
    with kwargs (fw_compiler, bw_compiler, partition_fn, decompositions, inference_compiler, ...); as
    PyTorch's, a callable `decompositions` is called first and the inference compiler defaults to fw_compiler."""

    def compiler_fn(gm, example_inputs):
        # functorch sits above _dynamo: reached when a graph is compiled, as PyTorch imports it here
        from minitorch.functorch.compile import aot_module_simplified

        opts = dict(kwargs)
        if callable(opts.get("decompositions")):
            opts["decompositions"] = opts["decompositions"]()
        opts["inference_compiler"] = opts.get("inference_compiler") or opts.get("fw_compiler")
        return aot_module_simplified(gm, example_inputs, **opts)

    return compiler_fn


def fake_tensor_unsupported(fn):
    """Marks a backend that needs real example inputs; ours always get real tensors, so fn runs as it is."""

    @functools.wraps(fn)
    def wrapper(model, inputs, **kwargs):
        return fn(model, inputs, **kwargs)

    return wrapper

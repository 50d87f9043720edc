"""torch.layout (strided, sparse_coo, sparse_csr, ...) and the process-wide switch for sparse invariant checks."""


class layout:
    """How a tensor's elements are stored: ``torch.strided`` (dense) or a sparse format. One object per layout,
    compared by identity, printed as PyTorch prints it (``torch.sparse_coo``)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        # the module-level instance: unpickling gives back the same object, so `is` comparisons keep working
        return (_by_name, (self._name,))


layout.__module__ = "minitorch"

strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
jagged = layout("jagged")  # torch.nested's ragged layout (nested/)
_LAYOUTS = {
    lay._name: lay for lay in (strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, jagged)
}


def _by_name(name):
    return _LAYOUTS[name]


# torch.sparse.check_sparse_tensor_invariants' switch: the constructors' check_invariants=None follows it
_checks = {"enabled": False}


def checks_enabled():
    """Whether the constructors check invariants when check_invariants is None."""
    return _checks["enabled"]


def set_checks(enabled):
    """Turns the constructors' default invariant checks on or off."""
    _checks["enabled"] = bool(enabled)

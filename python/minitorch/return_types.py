"""minitorch.return_types: the named result tuples of max/min/sort/topk/... (PyTorch's torch.return_types).

PyTorch's are C structseqs; ours are namedtuple subclasses that also take PyTorch's structseq constructor
(``return_types.topk((values, indices))``), so isinstance checks, attribute access, unpacking, pickling and
namedtuple-walking code (DataParallel's gather, the DataLoader's collate) all work."""

import collections

__all__ = []

_FIELDS = {
    "max": ("values", "indices"),
    "min": ("values", "indices"),
    "sort": ("values", "indices"),
    "topk": ("values", "indices"),
    "kthvalue": ("values", "indices"),
    "median": ("values", "indices"),
    "nanmedian": ("values", "indices"),
    "mode": ("values", "indices"),
    "cummax": ("values", "indices"),
    "cummin": ("values", "indices"),
    "aminmax": ("min", "max"),
    "frexp": ("mantissa", "exponent"),
    "histogram": ("hist", "bin_edges"),
    "histogramdd": ("hist", "bin_edges"),
    "slogdet": ("sign", "logabsdet"),
    "linalg_slogdet": ("sign", "logabsdet"),
    "qr": ("Q", "R"),
    "linalg_qr": ("Q", "R"),
    "svd": ("U", "S", "V"),
    "linalg_svd": ("U", "S", "Vh"),
    "linalg_eigh": ("eigenvalues", "eigenvectors"),
    "linalg_eig": ("eigenvalues", "eigenvectors"),
    "linalg_polar": ("U", "H"),
    "linalg_polar_out": ("U", "H"),
    "linalg_inv_ex": ("inverse", "info"),
    "linalg_cholesky_ex": ("L", "info"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"),
    "triangular_solve": ("solution", "cloned_coefficient"),
    "geqrf": ("a", "tau"),
}


def _make(name, fields):
    base = collections.namedtuple(name, fields)
    n = len(fields)

    def __new__(cls, *args, **kwargs):
        # PyTorch's structseq form: one sequence of n items (and an optional dict, as structseq accepts)
        if (
            len(args) in (1, 2)
            and isinstance(args[0], (tuple, list))
            and (len(args) == 1 or isinstance(args[1], dict))
            and not kwargs
        ):
            seq = tuple(args[0])
            if len(seq) != n:
                raise TypeError(
                    f"minitorch.return_types.{name}() takes a {n}-sequence ({len(seq)}-sequence given)"
                )
            return base.__new__(cls, *seq)
        return base.__new__(cls, *args, **kwargs)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"minitorch.return_types.{name}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))

    cls = type(
        name,
        (base,),
        {
            "__slots__": (),
            "__new__": __new__,
            "__repr__": __repr__,
            "__reduce__": __reduce__,
            "__module__": __name__,
            "__qualname__": name,
            "n_fields": n,
            "n_sequence_fields": n,
            "n_unnamed_fields": 0,
        },
    )
    return cls


for _name, _fields in _FIELDS.items():
    globals()[_name] = _make(_name, _fields)
    __all__.append(_name)
del _name, _fields

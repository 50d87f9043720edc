"""The names PyTorch's error messages give dtypes: ATen's ScalarType names ("Float", "Long") and the C++ type
names that TensorOptions and the in-place checks print ("float", "long int"). One table for every Python module
that words such a message (the C++ side has core/TypeMeta.h)."""

_SCALAR = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "bfloat16": "BFloat16",
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
}
_CPP = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def _key(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def scalar_name(dtype):
    """ATen's ScalarType name of a dtype: "Float" for minitorch.float32."""
    return _SCALAR.get(_key(dtype), _key(dtype))


def cpp_name(dtype):
    """The C++ type name of a dtype: "float" for minitorch.float32, "long int" for minitorch.int64."""
    return _CPP.get(_key(dtype), _key(dtype))


def dtype_name(dtype):
    """'float32' for minitorch.float32: the attribute name a dtype has on the minitorch module."""
    return repr(dtype).split(".")[-1]

# `import functorch` for the test programs: minitorch.functorch (where the wheel ships PyTorch's functorch package,
# so it never shadows a real one), with `functorch.compile` and `functorch.experimental` aliased too.
import sys

import minitorch.functorch
import minitorch.functorch.compile
import minitorch.functorch.experimental

for _name in ("compile", "experimental"):
    sys.modules[f"functorch.{_name}"] = sys.modules[f"minitorch.functorch.{_name}"]
sys.modules["functorch"] = minitorch.functorch

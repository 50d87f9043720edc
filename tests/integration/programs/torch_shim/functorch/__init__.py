# `import functorch` for the test programs: the functorch-era names PyTorch still ships, over minitorch.func.
from minitorch.func import (  # noqa: F401
    functionalize,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    vjp,
    vmap,
)
from minitorch.func._functorch_compat import (  # noqa: F401
    FunctionalModule,
    FunctionalModuleWithBuffers,
    combine_state_for_ensemble,
    make_functional,
    make_functional_with_buffers,
)

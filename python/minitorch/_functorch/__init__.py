"""torch._functorch: the home of functorch.compile's config module (the transforms live in minitorch.func)."""

"""torch._dynamo.utils: counters of what torch.compile did in this process, and the generated sources."""

import collections

__all__ = ["counters", "debug_sources"]

# counters["frames"]["total"/"ok"]: captures tried / succeeded; counters["stats"]["unique_graphs"]: graphs
# handed to a backend; counters["graph_break"][reason]: graph breaks by reason (as PyTorch's)
counters = collections.defaultdict(collections.Counter)


def debug_sources():
    """[(library path, C++ source)] of the kernels the inductor backend generated or loaded in this process."""
    from minitorch._inductor import debug_sources as sources

    return sources()

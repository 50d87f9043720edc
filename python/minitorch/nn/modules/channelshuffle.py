"""ChannelShuffle: ShuffleNet's interleaving of channel groups, over nn.functional."""

from minitorch.nn import functional as F
from minitorch.nn.modules.module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Divides the channels into `groups` groups and interleaves them."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        """F.channel_shuffle(input, groups)."""
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"

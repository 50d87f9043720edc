"""minitorch.distributed.launcher: the agent behind minitorch.distributed.run (torchrun), usable from Python as
elastic_launch(LaunchConfig(...), entrypoint)(*args)."""

from minitorch.distributed.launcher.api import LaunchConfig, elastic_launch, launch_agent

__all__ = ["LaunchConfig", "elastic_launch", "launch_agent"]

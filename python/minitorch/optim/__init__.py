"""minitorch.optim: PyTorch's optimizers and learning-rate schedulers over fused multi-tensor kernels."""

from minitorch.optim import lr_scheduler, swa_utils
from minitorch.optim._muon import Muon
from minitorch.optim.adadelta import Adadelta
from minitorch.optim.adafactor import Adafactor
from minitorch.optim.adagrad import Adagrad
from minitorch.optim.adam import Adam
from minitorch.optim.adamax import Adamax
from minitorch.optim.adamw import AdamW
from minitorch.optim.asgd import ASGD
from minitorch.optim.lbfgs import LBFGS
from minitorch.optim.nadam import NAdam
from minitorch.optim.optimizer import Optimizer
from minitorch.optim.radam import RAdam
from minitorch.optim.rmsprop import RMSprop
from minitorch.optim.rprop import Rprop
from minitorch.optim.sgd import SGD

__all__ = [
    "ASGD",
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "lr_scheduler",
    "swa_utils",
]

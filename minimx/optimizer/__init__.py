"""``mx.optimizer``: update rules that turn gradients into new weights.

Lesson: 13-optimizers.  Mirrors ``python/mxnet/optimizer/``.  ``optimizer.py``
holds the base class and the registry (``create('sgd', learning_rate=0.1)``,
``register``); one file per family holds the rules; ``updater.py`` holds the
``Updater`` that KVStore, Module and Trainer call, and ``state_format.py`` its
pickle-free saved-state format.
"""
from .optimizer import Optimizer, create, register
from .sgd import DCASGD, NAG, SGD, SGLD, Signum, Test, ccSGD
from .adaptive import AdaDelta, AdaGrad, RMSProp
from .adam import LAMB, Adam, Adamax, Nadam
from .ftrl import FTML, Ftrl
from .large_batch import LARS, LBSGD
from .updater import Updater, get_updater
from . import contrib

__all__ = ["Optimizer", "create", "register", "SGD", "ccSGD", "NAG", "Signum", "DCASGD",
           "SGLD", "Test", "AdaGrad", "RMSProp", "AdaDelta", "Adam", "Adamax", "Nadam", "LAMB",
           "Ftrl", "FTML", "LARS", "LBSGD", "Updater", "get_updater", "contrib"]

"""``mx.contrib.amp``: automatic mixed precision -- not part of minimx (see ``amp.py``)."""
from . import amp
from .amp import *  # noqa: F401,F403

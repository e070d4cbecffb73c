"""Being written."""
from . import parameter
from .parameter import Constant, DeferredInitializationError, Parameter, ParameterDict

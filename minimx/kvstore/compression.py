"""2-bit gradient compression: send only +threshold, -threshold or 0 per element.

Lesson: 14-kvstore-and-distributed.  Mirrors ``src/kvstore/gradient_compression.cc``.  Each
pushed array adds into a residual kept per (key, position in the push); where
the residual reaches ``threshold`` the value sent is ``+threshold`` (and the
residual loses it), where it falls to ``-threshold`` the value is
``-threshold``, elsewhere 0.  What is not sent stays in the residual for later
pushes, so no gradient is lost, only delayed.
"""
from ..base import MXNetError
from ..ndarray import zeros

__all__ = ["GradientCompression", "parse_compression_params"]

KNOWN_TYPES = ("none", "2bit")


def parse_compression_params(compression_params):
    """``(type, threshold)`` from MXNet's ``{'type': '2bit', 'threshold': 0.5}``."""
    if not isinstance(compression_params, dict):
        raise TypeError(f"compression_params must be a dict such as {{'type': '2bit', "
                        f"'threshold': 0.5}}, got {type(compression_params).__name__}")
    unknown = set(compression_params) - {"type", "threshold"}
    if unknown:
        raise MXNetError(f"unknown gradient compression parameter(s) {sorted(unknown)}; "
                         f"expected 'type' and 'threshold'")
    kind = compression_params.get("type")
    if kind not in KNOWN_TYPES:
        raise MXNetError(f"Unknown type for gradient compression {kind}; expected one of "
                         f"{KNOWN_TYPES}")
    threshold = float(compression_params.get("threshold", 0.5))
    if threshold <= 0:
        raise MXNetError(f"gradient compression threshold must be positive, got {threshold}")
    return kind, threshold


class GradientCompression:
    """Quantise pushed arrays to ``{-threshold, 0, +threshold}`` with error feedback.

    Examples
    --------
    >>> compression = GradientCompression(threshold=0.5)
    >>> sent = compression.compress(0, 0, nd.array([0.3, 0.6, -0.7, 1.4]))
    >>> sent.asnumpy()
    array([ 0. ,  0.5, -0.5,  0.5], dtype=float32)
    """

    def __init__(self, threshold=0.5):
        self.threshold = threshold
        self.residuals = {}         # (key, position) -> NDArray of what was not sent yet

    def compress(self, key, position, value):
        """The quantised array to send for ``value``; updates the residual."""
        residual = self.residuals.get((key, position))
        if residual is None or residual.context != value.context:
            residual = zeros(value.shape, ctx=value.context, dtype=value.dtype)
            self.residuals[(key, position)] = residual
        residual += value
        threshold = self.threshold
        sent = ((residual >= threshold) - (residual <= -threshold)) * threshold
        residual -= sent
        return sent

    def compress_all(self, key, values):
        """``compress`` each of the arrays pushed to ``key`` at once."""
        return [self.compress(key, position, value) for position, value in enumerate(values)]

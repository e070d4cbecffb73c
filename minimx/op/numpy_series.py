"""NumPy's window functions (``hanning``, ``hamming``, ``blackman``) and ``polyval``.

Lesson: 03-two-frontends-one-engine.  Mirrors ``src/operator/numpy/np_window_op.cc`` and
``np_polynomial_op.cc`` under MXNet's names.  A window is made from its length alone (no
inputs, no gradient); ``polyval`` evaluates the polynomial with coefficients ``p`` (highest
power first) at every element of ``x`` by Horner's rule, and has gradients for both.
"""
from .creation import Creation
from .params import DType, Param
from .registry import OpDef, TestHints, register_op


class Window(Creation):
    """A window of ``M`` points (``M <= 0``: empty; ``M == 1``: ``[1.]``), as NumPy's."""

    params = {"M": Param(int, doc="the number of points"),
              "dtype": Param(DType, default="float32", doc="output dtype")}

    def infer_shape(self):
        return (max(self.M, 0),)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.test = _window_test(cls.xp_name)

    def forward(self, xp):
        return getattr(xp, self.xp_name)(self.M).astype(self.dtype)


def _window_test(name):
    return TestHints(shapes=(), params={"M": 7}, grad=False,
                     cases=(({"M": 1, "dtype": "float64"}, ()), ({"M": 0}, ())),
                     reference=lambda np, M, dtype="float32": getattr(np, name)(M).astype(dtype))


@register_op
class Hanning(Window):
    """The Hann window: ``0.5 - 0.5 cos(2 pi n / (M - 1))``."""
    name = "_npi_hanning"
    xp_name = "hanning"


@register_op
class Hamming(Window):
    """The Hamming window: ``0.54 - 0.46 cos(2 pi n / (M - 1))``."""
    name = "_npi_hamming"
    xp_name = "hamming"


@register_op
class Blackman(Window):
    """The Blackman window: ``0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1))``."""
    name = "_npi_blackman"
    xp_name = "blackman"


@register_op
class Polyval(OpDef):
    """``p[0] x^(n-1) + ... + p[n-1]`` at every element of ``x`` (``p`` is 1-D)."""

    name = "_npi_polyval"
    inputs = ("p", "x")
    saves = ("p", "x")
    test = TestHints(shapes=((3,), (2, 3)), cases=(({}, ((1,), (4,))),),
                     reference=lambda np, p, x: np.polyval(p, x))

    def infer_shape(self, p, x):
        if len(p) != 1:
            raise self.shape_error(f"p must be 1-D coefficients, got shape {tuple(p)}")
        return tuple(x)

    def infer_type(self, p, x):
        if p != x:
            raise self.type_error(f"p and x must have one dtype, got {p} and {x}")
        return p

    def forward(self, xp, p, x):
        return self._horner(xp, p, x).astype(x.dtype, copy=False)

    def backward(self, xp, out_grad, p, x):
        n = p.shape[0]
        powers = xp.stack([x ** (n - 1 - i) for i in range(n)])       # (n, *x.shape)
        grad_p = (powers * out_grad).reshape(n, -1).sum(axis=1)
        slope = self._horner(xp, p[:-1] * xp.arange(n - 1, 0, -1, dtype=p.dtype), x) \
            if n > 1 else xp.zeros_like(x)
        return grad_p.astype(p.dtype), (slope * out_grad).astype(x.dtype)

    @staticmethod
    def _horner(xp, p, x):
        value = xp.zeros_like(x)
        for coefficient in p:
            value = value * x + coefficient
        return value

"""Random operators: samplers with scalar parameters, per-element samplers, multinomial, shuffle.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/random/sample_op.cc`` (``_random_*``),
``multisample_op.cc`` (``_sample_*``), ``sample_multinomial_op.cc`` and
``shuffle_op.cc``.  Randomness arrives as ``rng``, a Generator the dispatcher
seeds once per push from ``mx.random.seed``'s state, so a forward stays a pure
function of its inputs, parameters and that seed.  Only the Generator methods
numpy and CuPy share are used: ``random``, ``standard_normal``,
``standard_gamma``, ``standard_exponential``, ``poisson`` and ``integers``.
"""
import math

from .params import DType, Param, Shape
from .registry import OpDef, TestHints, declare_op, register_op

_FLOAT_TYPES = ("float16", "float32", "float64")
_SHAPE = Param(Shape, default=(), doc="output shape")
_FLOAT_DTYPE = Param(DType, default=None, doc="output dtype: float16, float32 or float64 "
                                              "(None: float32)")


# -- the distributions, written once for scalar and per-element parameters ----------------
def _uniform(xp, rng, size, low, high):
    return low + (high - low) * rng.random(size)


def _in_dtype(xp, values, dtype, distribution, high=None):
    """``values`` (float64 draws) as ``dtype``.  Rounding to float32 can carry a uniform
    draw just below ``high`` onto ``high`` itself: those become the largest value below it,
    so ``uniform`` stays in ``[low, high)`` in every dtype."""
    out = values.astype(dtype)
    if distribution is _uniform and high is not None and out.dtype.kind == "f":
        top = xp.asarray(high).astype(dtype)
        below = xp.nextafter(top, xp.asarray(-xp.inf, dtype=out.dtype)).astype(dtype)
        out = xp.where((out >= top) & (values < high), below, out)   # (low == high: high)
    return out


def _normal(xp, rng, size, loc, scale):
    return loc + scale * rng.standard_normal(size)


def _gamma(xp, rng, size, alpha, beta):
    return beta * rng.standard_gamma(alpha, size)


def _exponential(xp, rng, size, lam):
    return rng.standard_exponential(size) / lam


def _poisson(xp, rng, size, lam):
    return rng.poisson(lam, size)


def _negative_binomial(xp, rng, size, k, p):
    # failures before the k-th success: a Poisson whose rate is Gamma(k, (1 - p) / p)
    return rng.poisson(rng.standard_gamma(k, size) * ((1 - p) / p))


def _generalized_negative_binomial(xp, rng, size, mu, alpha):
    # a Poisson whose rate is Gamma(1 / alpha, mu * alpha); alpha = 0 is Poisson(mu)
    mu, alpha = xp.asarray(mu, dtype="float64"), xp.asarray(alpha, dtype="float64")
    safe_alpha = xp.where(alpha > 0, alpha, 1.0)
    rate = rng.standard_gamma(1.0 / safe_alpha, size) * (mu * safe_alpha)
    return rng.poisson(xp.where(alpha > 0, rate, mu))


def _check_dtype(op, allowed):
    if op.dtype is not None and op.dtype not in allowed:
        raise op.param_error(f"dtype must be one of {', '.join(allowed)}, got {op.dtype}")


def _distribution_parameters(params):
    """The names of a sampler's distribution parameters: all its params but shape and dtype."""
    return tuple(name for name in params if name not in ("shape", "dtype"))


# -- samplers with scalar parameters: _random_<distribution> -------------------------------
class RandomSampler(OpDef):
    """An operator with no inputs drawing ``shape`` samples of one distribution.

    A declaration names the distribution function; its other ``params`` (all but
    ``shape`` and ``dtype``) are the distribution's parameters, in order.
    """

    inputs = ()
    differentiable = False
    distribution = None          # one of the functions above
    dtypes = _FLOAT_TYPES        # the output dtypes allowed
    default_dtype = "float32"    # the output dtype when ``dtype`` is None
    test = TestHints(shapes=(), params={"shape": (2, 3)}, grad=False, random=True)

    def check_params(self):
        _check_dtype(self, self.dtypes)

    def check_distribution(self):
        """Check the distribution's parameter *values*; raise ``self.param_error``.

        ``draw`` calls it, inside the pushed work: as in MXNet, whose kernels check them,
        ``nd.random.normal(0, -1, shape)`` returns and its error comes at the next sync
        point (``asnumpy``, ``wait_to_read``, ``waitall``), naming the operator.  A
        parameter of the wrong type or an impossible shape is refused at the call.
        """

    def infer_shape(self):
        return self.shape

    def infer_type(self):
        return self.dtype or self.default_dtype

    def draw(self, xp, rng, size):
        self.check_distribution()
        values = [getattr(self, name) for name in _distribution_parameters(self.params)]
        return type(self).distribution(xp, rng, size, *values)

    def forward(self, xp, rng):
        return _in_dtype(xp, self.draw(xp, rng, self.shape), self.infer_type(),
                         type(self).distribution, getattr(self, "high", None))


def _positive(op, **values):
    for name, value in values.items():
        if not value > 0:
            raise op.param_error(f"{name} must be positive, got {value}")


def _non_negative(op, **values):
    for name, value in values.items():
        if not value >= 0:
            raise op.param_error(f"{name} must be non-negative, got {value}")


@register_op
class RandomUniform(RandomSampler):
    """Samples of the uniform distribution on ``[low, high)``."""
    name = "_random_uniform"
    aliases = ("uniform", "random_uniform")
    params = {"low": Param(float, default=0.0, doc="lower bound (included)"),
              "high": Param(float, default=1.0, doc="upper bound (excluded)"),
              "shape": _SHAPE, "dtype": _FLOAT_DTYPE}
    distribution = _uniform

    def check_distribution(self):
        if self.high < self.low:
            raise self.param_error(f"low must be <= high, got low={self.low}, high={self.high}")


@register_op
class RandomNormal(RandomSampler):
    """Samples of the normal distribution with mean ``loc`` and standard deviation ``scale``."""
    name = "_random_normal"
    aliases = ("normal", "random_normal")
    params = {"loc": Param(float, default=0.0, doc="mean"),
              "scale": Param(float, default=1.0, doc="standard deviation (> 0)"),
              "shape": _SHAPE, "dtype": _FLOAT_DTYPE}
    distribution = _normal

    def check_distribution(self):
        _positive(self, scale=self.scale)


@register_op
class RandomGamma(RandomSampler):
    """Samples of the gamma distribution with shape ``alpha`` and scale ``beta``."""
    name = "_random_gamma"
    aliases = ("random_gamma",)
    params = {"alpha": Param(float, default=1.0, doc="shape (> 0)"),
              "beta": Param(float, default=1.0, doc="scale (> 0)"),
              "shape": _SHAPE, "dtype": _FLOAT_DTYPE}
    distribution = _gamma

    def check_distribution(self):
        _positive(self, alpha=self.alpha, beta=self.beta)


@register_op
class RandomExponential(RandomSampler):
    """Samples of the exponential distribution with rate ``lam`` (mean ``1 / lam``)."""
    name = "_random_exponential"
    aliases = ("random_exponential",)
    params = {"lam": Param(float, default=1.0, doc="rate (> 0)"),
              "shape": _SHAPE, "dtype": _FLOAT_DTYPE}
    distribution = _exponential

    def check_distribution(self):
        _positive(self, lam=self.lam)


@register_op
class RandomPoisson(RandomSampler):
    """Samples of the Poisson distribution with rate ``lam``, stored as floats."""
    name = "_random_poisson"
    aliases = ("random_poisson",)
    params = {"lam": Param(float, default=1.0, doc="rate (>= 0)"),
              "shape": _SHAPE, "dtype": _FLOAT_DTYPE}
    distribution = _poisson

    def check_distribution(self):
        _non_negative(self, lam=self.lam)


@register_op
class RandomNegativeBinomial(RandomSampler):
    """Failures before the ``k``-th success in trials that succeed with probability ``p``."""
    name = "_random_negative_binomial"
    aliases = ("random_negative_binomial",)
    params = {"k": Param(int, default=1, doc="successes to wait for (>= 0)"),
              "p": Param(float, default=1.0, doc="success probability, in (0, 1]"),
              "shape": _SHAPE, "dtype": _FLOAT_DTYPE}
    distribution = _negative_binomial
    test = TestHints(shapes=(), params={"k": 3, "p": 0.4, "shape": (2, 3)}, grad=False,
                     random=True)

    def check_distribution(self):
        _non_negative(self, k=self.k)
        if not 0 < self.p <= 1:
            raise self.param_error(f"p must be in (0, 1], got {self.p}")


@register_op
class RandomGeneralizedNegativeBinomial(RandomSampler):
    """Samples with mean ``mu`` and dispersion ``alpha`` (variance ``mu + alpha * mu**2``)."""
    name = "_random_generalized_negative_binomial"
    aliases = ("random_generalized_negative_binomial",)
    params = {"mu": Param(float, default=1.0, doc="mean (>= 0)"),
              "alpha": Param(float, default=1.0, doc="dispersion (>= 0; 0 is Poisson)"),
              "shape": _SHAPE, "dtype": _FLOAT_DTYPE}
    distribution = _generalized_negative_binomial

    def check_distribution(self):
        _non_negative(self, mu=self.mu, alpha=self.alpha)


@register_op
class RandomRandint(RandomSampler):
    """Integers drawn uniformly from ``[low, high)``."""
    name = "_random_randint"
    aliases = ("random_randint",)
    params = {"low": Param(int, doc="lowest value (included)"),
              "high": Param(int, doc="upper bound (excluded)"),
              "shape": _SHAPE,
              "dtype": Param(DType, default=None, doc="int32 or int64 (None: int32)")}
    dtypes = ("int32", "int64")
    default_dtype = "int32"
    test = TestHints(shapes=(), params={"low": -3, "high": 5, "shape": (2, 3)}, grad=False,
                     random=True, dtypes=("int32",))

    def check_distribution(self):
        if self.high <= self.low:
            raise self.param_error(f"high must be > low, got low={self.low}, high={self.high}")

    def draw(self, xp, rng, size):
        self.check_distribution()
        return rng.integers(self.low, self.high, size=size, dtype="int64")


# -- the same samplers shaped like an input: _random_<distribution>_like --------------------
class SamplerLike(OpDef):
    """Mixin: sample with the shape and dtype of input ``data`` (its values are unused)."""

    inputs = ("data",)
    differentiable = False
    test = TestHints(grad=False, random=True)

    def infer_shape(self, data):
        return data

    def infer_type(self, data):
        if data not in _FLOAT_TYPES:
            raise self.type_error(f"data must be a float array, got {data}")
        return data

    def check_params(self):
        """Nothing at the call: ``draw`` checks the distribution's values."""

    def forward(self, xp, data, rng):
        return _in_dtype(xp, self.draw(xp, rng, data.shape), data.dtype,
                         type(self).distribution, getattr(self, "high", None))


def _like(sampler):
    """Declare ``<sampler.name>_like``: the sampler without ``shape`` and ``dtype``."""
    params = {name: sampler.params[name] for name in _distribution_parameters(sampler.params)}
    test_params = {key: value for key, value in sampler.test.params.items() if key in params}
    return declare_op(
        sampler.__name__ + "Like", (SamplerLike, sampler), name=sampler.name + "_like",
        __doc__=(sampler.__doc__ or "").rstrip(".") + ", shaped like ``data``.", aliases=(),
        params=params, test=TestHints(params=test_params, grad=False, random=True))


RandomUniformLike = _like(RandomUniform)
RandomNormalLike = _like(RandomNormal)
RandomGammaLike = _like(RandomGamma)
RandomExponentialLike = _like(RandomExponential)
RandomPoissonLike = _like(RandomPoisson)
RandomNegativeBinomialLike = _like(RandomNegativeBinomial)
RandomGeneralizedNegativeBinomialLike = _like(RandomGeneralizedNegativeBinomial)
# the public names of the ``_like`` samplers (``normal_like``): nd.random and sym.random
# each make one function per name from these operators
LIKE_SAMPLERS = {op.name[len("_random_"):]: op.name for op in (
    RandomUniformLike, RandomNormalLike, RandomGammaLike, RandomExponentialLike,
    RandomPoissonLike, RandomNegativeBinomialLike, RandomGeneralizedNegativeBinomialLike)}


# -- per-element parameters given as arrays: _sample_<distribution> --------------------------
class ElementwiseSampler(OpDef):
    """Draw ``shape`` samples for each element of the parameter arrays.

    All parameter arrays have one shape ``s``; the output has shape ``s + shape``.
    """

    differentiable = False
    distribution = None
    params = {"shape": _SHAPE, "dtype": _FLOAT_DTYPE}

    def check_params(self):
        _check_dtype(self, _FLOAT_TYPES)

    def infer_shape(self, *shapes):
        if any(shape != shapes[0] for shape in shapes):
            names = ", ".join(f"{name}{shape}" for name, shape in zip(self.inputs, shapes))
            raise self.shape_error(f"parameter arrays must have one shape, got {names}")
        return tuple(shapes[0]) + tuple(self.shape)

    def infer_type(self, *dtypes):
        if any(dtype != dtypes[0] for dtype in dtypes):
            raise self.type_error(f"parameter arrays must have one dtype, got {list(dtypes)}")
        if dtypes[0] not in _FLOAT_TYPES:
            raise self.type_error(f"parameter arrays must be floats, got {dtypes[0]}")
        return self.dtype or dtypes[0]

    def forward(self, xp, *arrays, rng):
        size = tuple(arrays[0].shape) + tuple(self.shape)
        # parameters of shape s broadcast against samples of shape s + shape
        expanded = [a.astype("float64").reshape(a.shape + (1,) * len(self.shape))
                    for a in arrays]
        distribution = type(self).distribution
        result = distribution(xp, rng, size, *expanded)
        return _in_dtype(xp, result, self.infer_type(*[a.dtype.name for a in arrays]),
                         distribution, expanded[1] if distribution is _uniform else None)


def _elementwise(name, distribution, inputs, doc, low=0.5, high=1.5):
    """Declare ``_sample_<name>``; ``low``/``high``: a valid range for every parameter."""
    test = TestHints(shapes=((2, 3),) * len(inputs), params={"shape": (2,)}, low=low,
                     high=high, grad=False, random=True)
    return declare_op("Sample" + name.title().replace("_", ""), (ElementwiseSampler,),
                      __doc__=doc, name="_sample_" + name, aliases=("sample_" + name,),
                      inputs=inputs, distribution=distribution, test=test)


SampleUniform = _elementwise("uniform", _uniform, ("low", "high"),
                             "Uniform samples on ``[low, high)`` for each parameter element.")
SampleNormal = _elementwise("normal", _normal, ("mu", "sigma"),
                            "Normal samples with mean ``mu`` and deviation ``sigma`` per element.")
SampleGamma = _elementwise("gamma", _gamma, ("alpha", "beta"),
                           "Gamma samples with shape ``alpha`` and scale ``beta``, per element.")
SampleExponential = _elementwise("exponential", _exponential, ("lam",),
                                 "Exponential samples with rate ``lam``, per element.")
SamplePoisson = _elementwise("poisson", _poisson, ("lam",),
                             "Poisson samples with rate ``lam``, per element.")
SampleNegativeBinomial = _elementwise(
    "negative_binomial", _negative_binomial, ("k", "p"),
    "Negative binomial samples (failures before ``k`` successes), per element.",
    low=0.2, high=0.9)
SampleGeneralizedNegativeBinomial = _elementwise(
    "generalized_negative_binomial", _generalized_negative_binomial, ("mu", "alpha"),
    "Generalized negative binomial samples (mean ``mu``, dispersion ``alpha``), per element.")


# -- categorical samples and permutations ----------------------------------------------------
@register_op
class SampleMultinomial(OpDef):
    """Category indices drawn with the probabilities along the last axis of ``data``.

    The output has shape ``data.shape[:-1] + shape``.  As in MXNet the
    probabilities are not normalised: a row summing to less than 1 may give
    index ``k`` (the number of categories).  With ``get_prob`` a second output
    holds the log-probability of each sample, differentiable with respect to
    ``data`` (the score-function gradient used by REINFORCE).
    """
    name = "_sample_multinomial"
    aliases = ("sample_multinomial",)
    inputs = ("data",)
    outputs = ("output", "prob")
    params = {"shape": _SHAPE,
              "get_prob": Param(bool, default=False, doc="also return log-probabilities"),
              "dtype": Param(DType, default="int32", doc="dtype of the indices")}
    saves = ("data", "output")
    _INDEX_TYPES = ("float16", "float32", "float64", "int32", "uint8")
    test = TestHints(shapes=((2, 5),), params={"shape": (3,)}, low=0.25, high=0.5, grad=False,
                     random=True)

    def check_params(self):
        if self.dtype not in self._INDEX_TYPES:
            raise self.param_error(f"dtype must be one of {', '.join(self._INDEX_TYPES)}, "
                                   f"got {self.dtype}")

    def list_outputs(self):
        return self.outputs if self.get_prob else self.outputs[:1]

    def infer_shape(self, data):
        if len(data) == 0:
            raise self.shape_error("data must have at least one axis (the categories), got ()")
        shape = tuple(data[:-1]) + tuple(self.shape)
        if len(data) == 1 and not self.shape:
            shape = (1,)
        return [shape] * len(self.list_outputs())

    def infer_type(self, data):
        if data not in _FLOAT_TYPES:
            raise self.type_error(f"probabilities must be floats, got {data}")
        return [self.dtype, data][:len(self.list_outputs())]

    def forward(self, xp, data, rng):
        categories = data.shape[-1]
        rows = data.reshape(-1, categories).astype("float64")
        draws = math.prod(self.shape)          # 1 when shape is ()
        uniform = rng.random((rows.shape[0], draws))
        # the first index whose cumulative probability exceeds the uniform draw
        cumulative = xp.cumsum(rows, axis=1)
        index = (cumulative[:, None, :] <= uniform[:, :, None]).sum(axis=2)
        out_shape = self.infer_shape(data.shape)[0]
        output = index.reshape(out_shape).astype(self.dtype)
        if not self.get_prob:
            return output
        picked = xp.take_along_axis(rows, xp.minimum(index, categories - 1), axis=1)
        return output, xp.log(picked).reshape(out_shape).astype(data.dtype)

    def backward(self, xp, *out_grads, data, output):
        if len(out_grads) < 2:
            return xp.zeros_like(data)
        # d log(p[i]) / d p[i] = 1 / p[i], summed over the draws that picked i
        categories = data.shape[-1]
        rows = data.reshape(-1, categories)
        index = output.reshape(rows.shape[0], -1).astype("int64")
        picked = xp.take_along_axis(rows, xp.minimum(index, categories - 1), axis=1)
        share = out_grads[1].reshape(index.shape) / picked
        one_hot = index[:, :, None] == xp.arange(categories)
        grad = (one_hot * share[:, :, None]).sum(axis=1)
        return grad.reshape(data.shape).astype(data.dtype)


@register_op
class Shuffle(OpDef):
    """A random permutation of ``data`` along its first axis."""
    name = "_shuffle"
    aliases = ("shuffle",)
    differentiable = False
    has_gradient = False
    test = TestHints(shapes=((4, 3),), grad=False, random=True)

    def infer_shape(self, data):
        if len(data) == 0:
            raise self.shape_error("data must have at least one axis, got shape ()")
        return data

    def forward(self, xp, data, rng):
        order = xp.argsort(rng.random(data.shape[0]))
        return data[order]


# -- log-uniform (Zipfian) class sampling, for sampled softmax --------------------------------
def _log_uniform(xp, rng, size, range_max):
    """Classes in ``[0, range_max)`` with P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)."""
    classes = xp.floor(xp.exp(rng.random(size) * math.log(range_max + 1))) - 1
    return xp.clip(classes, 0, range_max - 1).astype("int64")


@register_op
class SampleUniqueZipfian(OpDef):
    """Per row of ``shape = (batch, num_sampled)``: ``num_sampled`` distinct log-uniform
    classes in ``[0, range_max)`` (drawn until that many distinct ones came up), and how many
    draws each row took (what sampled softmax corrects its probabilities with)."""
    name = "_sample_unique_zipfian"
    inputs = ()
    outputs = ("classes", "num_trials")
    differentiable = False
    params = {"range_max": Param(int, doc="the number of classes"),
              "shape": Param(Shape, doc="(batch, num_sampled)")}
    test = TestHints(shapes=(), params={"range_max": 50, "shape": (2, 10)}, grad=False,
                     random=True)

    def check_params(self):
        if len(self.shape) != 2 or not 0 < self.shape[1] <= self.range_max:
            raise self.param_error(f"shape must be (batch, num_sampled) with num_sampled in "
                                   f"[1, range_max={self.range_max}], got {self.shape}")

    def infer_shape(self):
        return [tuple(self.shape), (self.shape[0],)]

    def infer_type(self):
        return ["int64", "int64"]

    def forward(self, xp, rng):
        batch, wanted = self.shape
        classes = xp.empty((batch, wanted), dtype="int64")
        trials = xp.empty((batch,), dtype="int64")
        for row in range(batch):
            drawn = xp.empty((0,), dtype="int64")
            while True:
                drawn = xp.concatenate([drawn, _log_uniform(xp, rng, 2 * wanted,
                                                            self.range_max)])
                values, first = xp.unique(drawn, return_index=True)
                if values.size >= wanted:
                    break
            order = xp.sort(first)[:wanted]           # the first ``wanted`` distinct draws
            classes[row] = drawn[order]
            trials[row] = int(order[-1]) + 1
        return classes, trials

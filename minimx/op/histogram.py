"""``histogram``: how many values fall in each bin, as ``numpy.histogram``.

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/tensor/histogram.cc``.  The bins
are either ``bin_cnt`` equal-width bins over ``range`` (one input), or given as an array
of edges (a second input, ``bins``).  Outputs: the int64 counts and the bin edges.  Like
numpy, each bin holds its left edge, the last one its right edge too; values outside the
edges are not counted.  ``nd.histogram(a, bins=10, range=None)`` (``ndarray/functions.py``)
picks the form.
"""
import numbers

from .params import FloatTuple, Optional, Param
from .registry import OpDef, TestHints, register_op


def _reference(np, data, *bins, bin_cnt=None, range=None):
    counts, edges = np.histogram(data, bins[0] if bins else bin_cnt, range=range)
    return counts.astype(np.int64), edges.astype(bins[0].dtype if bins else data.dtype)


def _sorted_edges(rng, shapes, dtype):
    """Random data and, when a second shape is given, increasing bin edges."""
    arrays = [rng.uniform(-1, 1, shape) for shape in shapes]
    for edges in arrays[1:]:
        edges.sort()
    return [array.astype(dtype) for array in arrays]


@register_op
class Histogram(OpDef):
    """Counts of ``data`` in ``bin_cnt`` equal bins over ``range``, or in the bins between
    the edges of the input ``bins``."""
    name = "_histogram"
    inputs = ("data", "bins")
    outputs = ("counts", "edges")
    differentiable = False
    has_gradient = False
    params = {"bin_cnt": Param(Optional(int), default=None, doc="number of equal bins"),
              "range": Param(Optional(FloatTuple), default=None,
                             doc="(low, high) of the equal bins")}
    test = TestHints(shapes=((3, 4),), params={"bin_cnt": 5, "range": (-0.5, 0.5)},
                     grad=False, reference=_reference,
                     cases=(({}, ((3, 4), (5,))),), inputs=_sorted_edges)

    def check_params(self):
        if self.bin_cnt is not None:
            if self.bin_cnt < 1:
                raise self.param_error(f"bin_cnt must be at least 1, got {self.bin_cnt}")
            if self.range is None or len(self.range) != 2 or self.range[0] > self.range[1]:
                raise self.param_error(f"range must be (low, high) with low <= high when "
                                       f"bin_cnt is given, got {self.range}")

    def list_inputs(self, num_args=None):
        return ("data",) if self.bin_cnt is not None else self.inputs

    def infer_shape(self, data, *bins):
        if self.bin_cnt is not None:
            return [(self.bin_cnt,), (self.bin_cnt + 1,)]
        if len(bins[0]) != 1 or bins[0][0] < 2:
            raise self.shape_error(f"bins must be a 1-D array of at least 2 edges, got "
                                   f"{tuple(bins[0])}")
        return [(bins[0][0] - 1,), tuple(bins[0])]

    def infer_type(self, data, *bins):
        return ["int64", bins[0] if bins else data]

    def forward(self, xp, data, *bins):
        if self.bin_cnt is not None:
            low, high = self.range
            edges = xp.linspace(low, high, self.bin_cnt + 1).astype(data.dtype)
        else:
            edges = bins[0]
        counts, _ = xp.histogram(data.ravel(), bins=edges.astype("float64"))
        return counts.astype("int64"), edges.copy()

    @staticmethod
    def params_for(bins, range):
        """The operator's parameters and extra inputs for numpy's ``histogram(a, bins, range)``
        arguments: an int ``bins`` is a count (``range`` required), else an array of edges."""
        if isinstance(bins, numbers.Integral):
            if range is None:
                raise ValueError("histogram: range must be given when bins is a number")
            return {"bin_cnt": bins, "range": tuple(range)}, ()
        return {}, (bins,)

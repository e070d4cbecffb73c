"""Joining arrays and splitting one: Concat, stack and SliceChannel (split).

Lesson: 02-ndarray-and-context.  Mirrors ``src/operator/nn/concat.cc``, ``src/operator/tensor/
matrix_op.cc`` (stack) and ``src/operator/slice_channel.cc``.  The gradient of a join
is a split of the output gradient, and the gradient of a split is a join.
"""
import itertools
import numbers

from .common import normalize_axis
from .params import Param, Shape
from .registry import OpDef, TestHints, register_op


# -- joining and splitting -------------------------------------------------------------------
def one_dtype(op, dtypes):
    """The dtype every input of a join has, as MXNet requires ("Non-uniform data type in
    Concat"): joining int32 with float32 would otherwise cast the float values to the first
    input's dtype, silently (1.5 -> 1).  Unknown dtypes (None) take the others'."""
    known = [dtype for dtype in dtypes if dtype is not None]
    for position, dtype in enumerate(dtypes):
        if dtype is not None and dtype != known[0]:
            raise op.type_error(f"inputs must have one dtype: input 0 is {known[0]}, input "
                                f"{position} is {dtype} (cast them first, e.g. "
                                f"x.astype('{known[0]}'))")
    return known[0] if known else None


@register_op
class Concat(OpDef):
    """Join arrays along axis ``dim``; the other dims must agree."""
    name = "Concat"
    family = "shape"
    aliases = ("concat",)
    variadic = True
    params = {"num_args": Param(int, default=1, doc="how many inputs"),
              "dim": Param(int, default=1, doc="the axis to join along")}
    saves = ("input_shapes",)
    test = TestHints(shapes=((2, 3), (2, 1), (2, 2)),
                     reference=lambda np, *xs, dim=1, **_: np.concatenate(xs, axis=dim),
                     cases=(({"dim": 0}, ((1, 3), (2, 3))),))

    def infer_shape(self, *shapes):
        if not shapes:
            raise self.shape_error("expected at least one input")
        first = tuple(shapes[0])
        axis = normalize_axis(self, self.dim, len(first))
        for shape in shapes[1:]:
            if len(shape) != len(first) or any(
                    a != b for i, (a, b) in enumerate(zip(shape, first)) if i != axis):
                raise self.shape_error(f"cannot join shapes {[tuple(s) for s in shapes]} "
                                       f"along axis {self.dim}")
        return first[:axis] + (sum(s[axis] for s in shapes),) + first[axis + 1:]

    def infer_input_shapes_from_outputs(self, input_shapes, output_shapes):
        """Every axis but ``dim`` of each input is the output's; the one input whose
        ``dim`` size is unknown gets what the others leave."""
        output = output_shapes[0]
        if output is None:
            return list(input_shapes)
        axis = normalize_axis(self, self.dim, len(output))
        shapes = [output[:axis] + ((shape[axis] if shape else 0),) + output[axis + 1:]
                  for shape in input_shapes]
        unknown = [index for index, shape in enumerate(shapes) if not shape[axis]]
        if len(unknown) == 1 and output[axis]:
            rest = output[axis] - sum(shape[axis] for shape in shapes)
            index = unknown[0]
            shapes[index] = shapes[index][:axis] + (rest,) + shapes[index][axis + 1:]
        return shapes

    def infer_type(self, *dtypes):
        return one_dtype(self, dtypes)

    def forward(self, xp, *arrays):
        return xp.concatenate(arrays, axis=self.dim)

    def backward(self, xp, out_grad, input_shapes):
        axis = normalize_axis(self, self.dim, out_grad.ndim)
        boundaries = list(itertools.accumulate(shape[axis] for shape in input_shapes))
        return tuple(xp.split(out_grad, boundaries[:-1], axis=axis))


@register_op
class Stack(OpDef):
    """Join arrays of one shape along a new axis ``axis``."""
    name = "stack"
    variadic = True
    params = {"axis": Param(int, default=0, doc="position of the new axis"),
              "num_args": Param(int, default=1, doc="how many inputs")}
    test = TestHints(shapes=((2, 3), (2, 3)), params={"axis": -1},
                     reference=lambda np, *xs, axis=0, **_: np.stack(xs, axis=axis))

    def _position(self, ndim):
        if not -ndim - 1 <= self.axis <= ndim:
            raise self.shape_error(f"axis {self.axis} is out of range for {ndim}-dim inputs")
        return self.axis % (ndim + 1)

    def infer_shape(self, *shapes):
        first = tuple(shapes[0])
        if any(tuple(shape) != first for shape in shapes):
            raise self.shape_error(f"inputs must have one shape, got {[tuple(s) for s in shapes]}")
        axis = self._position(len(first))
        return first[:axis] + (len(shapes),) + first[axis:]

    def infer_type(self, *dtypes):
        return one_dtype(self, dtypes)

    def forward(self, xp, *arrays):
        return xp.stack(arrays, axis=self._position(arrays[0].ndim))

    def backward(self, xp, out_grad):
        axis = self._position(out_grad.ndim - 1)
        return tuple(xp.take(out_grad, index, axis=axis)
                     for index in range(out_grad.shape[axis]))


def _reference_split(np, x, num_outputs, axis=1, squeeze_axis=False, **_):
    parts = np.split(x, num_outputs, axis=axis)
    return tuple(np.squeeze(part, axis) if squeeze_axis else part for part in parts)


@register_op
class SliceChannel(OpDef):
    """Split ``data`` into ``num_outputs`` equal parts along ``axis``; returns a list."""
    name = "SliceChannel"
    aliases = ("split",)
    method = "split"
    named_outputs = True            # split0_output0, split0_output1 ... even for one part
    params = {"num_outputs": Param(int, doc="how many parts"),
              "axis": Param(int, default=1, doc="the axis to split"),
              "squeeze_axis": Param(bool, default=False, doc="drop the split axis (parts of 1)")}
    test = TestHints(shapes=((2, 4),), params={"num_outputs": 2},
                     reference=_reference_split,
                     cases=(({"num_outputs": 3, "axis": 0, "squeeze_axis": True}, ((3, 2),)),))

    def check_params(self):
        if self.num_outputs < 1:
            raise self.param_error(f"num_outputs must be at least 1, got {self.num_outputs}")

    def list_outputs(self):
        return tuple(f"output{index}" for index in range(self.num_outputs))

    def infer_shape(self, data):
        axis = normalize_axis(self, self.axis, len(data))
        if data[axis] % self.num_outputs:
            raise self.shape_error(f"axis {self.axis} of shape {tuple(data)} does not split "
                                   f"into {self.num_outputs} equal parts")
        part = data[axis] // self.num_outputs
        if self.squeeze_axis and part != 1:
            raise self.shape_error(f"squeeze_axis needs parts of length 1, got {part}")
        middle = () if self.squeeze_axis else (part,)
        shape = tuple(data[:axis]) + middle + tuple(data[axis + 1:])
        return [shape or (1,)] * self.num_outputs

    def infer_input_shapes_from_outputs(self, input_shapes, output_shapes):
        """The input from any output part: the same sizes, ``num_outputs`` times the
        part's along ``axis``."""
        known = [shape for shape in output_shapes if shape is not None]
        if not known or len({len(shape) for shape in known}) != 1:
            return list(input_shapes)
        output = tuple(max(sizes) for sizes in zip(*known))   # the parts share one shape
        rank = len(output) + int(self.squeeze_axis)
        axis = normalize_axis(self, self.axis, rank)
        part = 1 if self.squeeze_axis else output[axis]
        rest = output[axis:] if self.squeeze_axis else output[axis + 1:]
        return [tuple(output[:axis]) + (part * self.num_outputs,) + tuple(rest)]

    def forward(self, xp, data):
        axis = normalize_axis(self, self.axis, data.ndim)
        shapes = self.infer_shape(data.shape)
        parts = xp.split(data, self.num_outputs, axis=axis)
        return tuple(part.reshape(shape) for part, shape in zip(parts, shapes))

    def backward(self, xp, *out_grads):
        axis = normalize_axis(self, self.axis, out_grads[0].ndim + int(self.squeeze_axis))
        if self.squeeze_axis:
            return xp.stack(out_grads, axis=axis)
        return xp.concatenate(out_grads, axis=axis)


def _reference_split_v2(np, x, indices, axis=1, squeeze_axis=False, sections=0):
    parts = np.split(x, sections if sections > 0 else list(indices[1:]), axis=axis)
    return tuple(np.squeeze(part, axis) if squeeze_axis else part for part in parts)


@register_op
class SplitV2(OpDef):
    """Split ``data`` along ``axis`` into ``sections`` equal parts, or at the positions
    ``indices`` (which start with 0): what ``nd.split_v2`` calls."""
    name = "_split_v2"
    named_outputs = True
    params = {"indices": Param(Shape, default=(), doc="split positions, starting with 0"),
              "axis": Param(int, default=1), "squeeze_axis": Param(bool, default=False),
              "sections": Param(int, default=0, doc="equal parts (when > 0)")}
    test = TestHints(shapes=((6, 4),), params={"indices": (0, 1, 3)},
                     reference=_reference_split_v2,
                     cases=(({"indices": (), "sections": 2, "axis": 1}, ((3, 4),)),
                            ({"indices": (), "sections": 3, "axis": 0, "squeeze_axis": True},
                             ((3, 2),))))

    @staticmethod
    def params_for(indices_or_sections):
        """The parameters for ``split_v2(ary, indices_or_sections)``: a number of equal
        parts, or a tuple of split positions (as numpy's ``split``)."""
        if isinstance(indices_or_sections, numbers.Integral):
            return {"indices": (), "sections": int(indices_or_sections)}
        if isinstance(indices_or_sections, tuple):
            return {"indices": (0,) + tuple(indices_or_sections), "sections": 0}
        raise ValueError("indices_or_sections must either int or tuple of ints")

    def _bounds(self, size):
        if self.sections > 0:
            if size % self.sections:
                raise self.shape_error(f"an axis of {size} does not split into "
                                       f"{self.sections} equal parts")
            step = size // self.sections
            return [(i * step, (i + 1) * step) for i in range(self.sections)]
        if size == 0:                   # MXNet: an empty axis gives empty parts, any indices
            return [(0, 0)] * len(self.indices)
        cuts = list(self.indices) + [size]
        bounds = list(zip(cuts[:-1], cuts[1:]))
        if any(start > stop for start, stop in bounds):
            raise self.shape_error(f"indices {tuple(self.indices)} must be ascending and "
                                   f"within the axis of {size}")
        return bounds

    def list_outputs(self):
        count = self.sections if self.sections > 0 else len(self.indices)
        return tuple(f"output{index}" for index in range(count))

    def infer_shape(self, data):
        axis = normalize_axis(self, self.axis, len(data))
        shapes = []
        for start, stop in self._bounds(data[axis]):
            if self.squeeze_axis and stop - start != 1:
                raise self.shape_error("squeeze_axis needs parts of length 1")
            part = list(data)
            part[axis] = stop - start
            shapes.append(tuple(part[:axis] + part[axis + 1:]) if self.squeeze_axis
                          else tuple(part))
        return shapes

    def forward(self, xp, data):
        axis = normalize_axis(self, self.axis, data.ndim)
        parts = []
        for start, stop in self._bounds(data.shape[axis]):
            part = data[(slice(None),) * axis + (slice(start, stop),)].copy()
            parts.append(xp.squeeze(part, axis) if self.squeeze_axis else part)
        return tuple(parts)

    def backward(self, xp, *out_grads):
        axis = normalize_axis(self, self.axis, out_grads[0].ndim + int(self.squeeze_axis))
        grads = [xp.expand_dims(g, axis) if self.squeeze_axis else g for g in out_grads]
        return xp.concatenate(grads, axis=axis)

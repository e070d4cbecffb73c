"""Numpy references for the operators whose forward is too long for a lambda in TestHints.

Each function is called as the inline references are, ``reference(np, *inputs, **params)``
with the case parameters its signature names, and returns the visible output(s).  They
are written from the definitions (loops over output positions), not from the
operator code, so a shared mistake is unlikely.  ``REFERENCES`` maps an operator name
to its function; ``registry_cases.reference_for`` uses it when a TestHints gives none.
"""
import itertools
import math

import numpy as np
from optimizer_references import OUTPUT_REFERENCES
from detection_references import DETECTION_REFERENCES
from adamw_references import ADAMW_REFERENCES


# -- dense layer and activations ---------------------------------------------------------------
def fully_connected(np, x, weight, bias=None, flatten=True):
    rows = x.reshape(x.shape[0], -1) if flatten else x
    return rows @ weight.T + (0 if bias is None else bias.reshape(-1))    # (n,) or (n, 1)


_ACTIVATIONS = {
    "relu": lambda np, x: np.maximum(x, 0),
    "sigmoid": lambda np, x: 1 / (1 + np.exp(-x)),
    "tanh": lambda np, x: np.tanh(x),
    "softrelu": lambda np, x: np.log1p(np.exp(x)),
    "softsign": lambda np, x: x / (1 + np.abs(x)),
}


def activation(np, x, act_type):
    return _ACTIVATIONS[act_type](np, x)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


def leaky_relu(np, x, gamma=None, act_type="leaky", slope=0.25):
    if act_type == "prelu":
        if gamma.ndim > 1:          # one slope per element of the leading axes
            slopes = gamma.reshape(gamma.shape + (1,) * (x.ndim - gamma.ndim))
        else:
            slopes = gamma.reshape(1, -1, *([1] * (x.ndim - 2)))
        return np.where(x > 0, x, slopes * x)
    if act_type == "elu":
        return np.where(x > 0, x, slope * (np.exp(x) - 1))
    if act_type == "selu":
        return _SELU_LAMBDA * np.where(x > 0, x, _SELU_ALPHA * (np.exp(x) - 1))
    if act_type == "gelu":
        return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
    return np.where(x > 0, x, slope * x)


def softmax(np, x, axis=-1, temperature=None):
    e = np.exp(x / (temperature or 1.0))
    return e / e.sum(axis, keepdims=True)


def softmax_cross_entropy(np, x, label):
    log_probs = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    rows = np.arange(x.shape[0])
    return -log_probs[rows, label.astype(int)].sum().reshape(1)


# -- normalisation ---------------------------------------------------------------------------
def _per_channel(vector, ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return vector.reshape(shape)


def batch_norm(np, x, gamma, beta, moving_mean, moving_var, eps=1e-3, fix_gamma=True, axis=1):
    """Outside training (how the generated forward test calls it): the moving statistics."""
    axis = axis % x.ndim
    scale = np.ones_like(gamma) if fix_gamma else gamma
    normalized = ((x - _per_channel(moving_mean, x.ndim, axis))
                  / np.sqrt(_per_channel(moving_var, x.ndim, axis) + eps))
    return normalized * _per_channel(scale, x.ndim, axis) + _per_channel(beta, x.ndim, axis)


def sync_batch_norm(np, x, gamma, beta, moving_mean, moving_var, eps=1e-3, fix_gamma=True,
                    ndev=1, key=None):
    """On one device (``ndev=1``), BatchNorm over the channel axis 1."""
    return batch_norm(np, x, gamma, beta, moving_mean, moving_var, eps, fix_gamma, axis=1)


def _bilinear_read(np, plane, y, x):
    """MXNet's CPU read of one channel at fractional (y, x): 0 outside [0, H) x [0, W); in
    the last row or column the fraction is dropped."""
    height, width = plane.shape
    if not (0 <= y < height and 0 <= x < width):
        return 0.0
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    y1, fy = (y0, 0.0) if y0 >= height - 1 else (y0 + 1, y - y0)
    x1, fx = (x0, 0.0) if x0 >= width - 1 else (x0 + 1, x - x0)
    return ((1 - fy) * (1 - fx) * plane[y0, x0] + (1 - fy) * fx * plane[y0, x1]
            + fy * (1 - fx) * plane[y1, x0] + fy * fx * plane[y1, x1])


def _bilinear_read_zero(np, plane, y, x):
    """ModulatedDeformableConvolution's read: 0 unless -1 < y < H and -1 < x < W, and a
    corner outside the plane reads 0."""
    height, width = plane.shape
    if not (-1 < y < height and -1 < x < width):
        return 0.0
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    fy, fx = y - y0, x - x0
    total = 0.0
    for yy, xx, weight in ((y0, x0, (1 - fy) * (1 - fx)), (y0, x0 + 1, (1 - fy) * fx),
                           (y0 + 1, x0, fy * (1 - fx)), (y0 + 1, x0 + 1, fy * fx)):
        if 0 <= yy < height and 0 <= xx < width:
            total += weight * plane[yy, xx]
    return total


def modulated_deformable_convolution(np, data, offset, mask, weight, bias=None, kernel=(),
                                     stride=(), dilate=(), pad=(), num_group=1,
                                     num_deformable_group=1):
    return deformable_convolution(np, data, offset, weight, bias, kernel, stride, dilate, pad,
                                  num_group, num_deformable_group, mask=mask,
                                  read=_bilinear_read_zero)


def deformable_convolution(np, data, offset, weight, bias=None, kernel=(), stride=(),
                           dilate=(), pad=(), num_group=1, num_deformable_group=1, mask=None,
                           read=_bilinear_read):
    """Every output element as a sum over channels and taps of the moved, bilinearly read
    input (times the mask's entry, when there is one) times the filter."""
    (sh, sw), (dh, dw), (ph, pw) = _geometry(kernel, stride, dilate, pad)
    batch, channels = data.shape[:2]
    filters, out_h, out_w = weight.shape[0], offset.shape[2], offset.shape[3]
    per_group, per_deformable = channels // num_group, channels // num_deformable_group
    out = np.zeros((batch, filters, out_h, out_w))
    for n, f, oy, ox in np.ndindex(batch, filters, out_h, out_w):
        group = f // (filters // num_group)
        for c, i, j in np.ndindex(per_group, *kernel):
            channel = group * per_group + c
            tap = 2 * (i * kernel[1] + j) + channel // per_deformable * 2 * kernel[0] * kernel[1]
            y = oy * sh - ph + i * dh + offset[n, tap, oy, ox]
            x = ox * sw - pw + j * dw + offset[n, tap + 1, oy, ox]
            scale = 1.0 if mask is None else mask[n, tap // 2, oy, ox]
            out[n, f, oy, ox] += weight[f, c, i, j] * scale * read(np, data[n, channel], y, x)
    if bias is not None:
        out += _per_channel(bias, out.ndim, 1)
    return out


def layer_norm(np, x, gamma, beta, axis=-1, eps=1e-5):
    axis = axis % x.ndim
    mean = x.mean(axis=axis, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axis, keepdims=True)
    normalized = (x - mean) / np.sqrt(var + eps)
    return normalized * _per_channel(gamma, x.ndim, axis) + _per_channel(beta, x.ndim, axis)


def instance_norm(np, x, gamma, beta, eps=1e-3):
    out = np.empty_like(x, dtype="float64")
    for sample, channel in np.ndindex(*x.shape[:2]):
        plane = x[sample, channel]
        normalized = (plane - plane.mean()) / np.sqrt(plane.var() + eps)
        out[sample, channel] = normalized * gamma[channel] + beta[channel]
    return out


def group_norm(np, x, gamma, beta, num_groups=1, eps=1e-5, output_mean_var=False):
    per_group = x.shape[1] // num_groups
    out = np.empty_like(x, dtype="float64")
    means, stds = np.empty((x.shape[0], num_groups)), np.empty((x.shape[0], num_groups))
    for sample, group in np.ndindex(x.shape[0], num_groups):
        channels = slice(group * per_group, (group + 1) * per_group)
        block = x[sample, channels]
        means[sample, group], stds[sample, group] = block.mean(), np.sqrt(block.var() + eps)
        normalized = (block - block.mean()) / stds[sample, group]
        out[sample, channels] = normalized * gamma[group] + beta[group]
    return (out, means, stds) if output_mean_var else out


def l2_normalization(np, x, mode="instance", eps=1e-10):
    axes = {"instance": tuple(range(1, x.ndim)), "channel": (1,),
            "spatial": tuple(range(2, x.ndim))}[mode]
    return x / np.sqrt((x * x).sum(axes, keepdims=True) + eps)


def lrn(np, x, nsize, alpha=1e-4, beta=0.75, knorm=2.0):
    """Each channel divided by a power of the squares summed over its ``nsize`` neighbours."""
    out = np.empty_like(x, dtype="float64")
    channels, half = x.shape[1], nsize // 2
    for channel in range(channels):
        low, high = max(0, channel - half), min(channels, channel + half + 1)
        squares = (x[:, low:high] ** 2).sum(axis=1)
        out[:, channel] = x[:, channel] / (knorm + alpha / nsize * squares) ** beta
    return out


# -- convolution and pooling -----------------------------------------------------------------
def _geometry(kernel, stride, dilate, pad):
    rank = len(kernel)
    return stride or (1,) * rank, dilate or (1,) * rank, pad or (0,) * rank


def convolution(np, data, weight, bias=None, kernel=(), stride=(), dilate=(), pad=(),
                num_group=1):
    """Every output element as the sum of one window times one filter."""
    stride, dilate, pad = _geometry(kernel, stride, dilate, pad)
    padded = np.pad(data, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    spans = [d * (k - 1) + 1 for k, d in zip(kernel, dilate)]
    out_size = [(n - span) // s + 1 for n, span, s in zip(padded.shape[2:], spans, stride)]
    batch, channels = data.shape[:2]
    filters = weight.shape[0]
    in_per_group, out_per_group = channels // num_group, filters // num_group
    out = np.zeros((batch, filters, *out_size))
    for f in range(filters):
        group = f // out_per_group
        inputs = padded[:, group * in_per_group:(group + 1) * in_per_group]
        for position in np.ndindex(*out_size):
            window = tuple(slice(o * s, o * s + span, d)
                           for o, s, span, d in zip(position, stride, spans, dilate))
            patch = inputs[(slice(None), slice(None)) + window]
            out[(slice(None), f) + position] = (patch * weight[f]).reshape(batch, -1).sum(1)
    if bias is not None:
        out += _per_channel(bias, out.ndim, 1)
    return out


def deconvolution(np, data, weight, bias=None, kernel=(), stride=(), dilate=(), pad=(), adj=(),
                  target_shape=(), num_group=1):
    """Every input element scatters ``value * filter`` into the (uncropped) output, which is
    then cropped by ``pad`` at both ends and extended by ``adj`` at the end."""
    stride, dilate, pad = _geometry(kernel, stride, dilate, pad)
    adj = adj or (0,) * len(kernel)
    spans = [d * (k - 1) + 1 for k, d in zip(kernel, dilate)]
    full = [(n - 1) * s + span for n, s, span in zip(data.shape[2:], stride, spans)]
    if target_shape:
        pad = tuple(max(0, (size - target + 1) // 2) for size, target in zip(full, target_shape))
        sizes = list(target_shape)
    else:
        sizes = [size - 2 * p + a for size, p, a in zip(full, pad, adj)]
    batch, channels = data.shape[:2]
    in_per_group = channels // num_group
    out_per_group = weight.shape[1]
    canvas = np.zeros((batch, out_per_group * num_group,
                       *[p + size for p, size in zip(pad, sizes)]))
    for c in range(channels):
        group = c // in_per_group
        targets = slice(group * out_per_group, (group + 1) * out_per_group)
        for position in np.ndindex(*data.shape[2:]):
            window = tuple(slice(i * s, i * s + span, d)
                           for i, s, span, d in zip(position, stride, spans, dilate))
            value = data[(slice(None), c) + position].reshape(batch, 1, *[1] * len(kernel))
            # windows past the end of the canvas fall into the cropped-off region
            region = canvas[(slice(None), targets) + window]
            visible = tuple(slice(0, n) for n in region.shape[2:])
            region += (value * weight[c][None])[(slice(None), slice(None)) + visible]
    out = canvas[(slice(None), slice(None)) + tuple(slice(p, None) for p in pad)]
    if bias is not None:
        out = out + _per_channel(bias, out.ndim, 1)
    return out


def pooling(np, data, kernel=(), pool_type="max", global_pool=False,
            pooling_convention="valid", stride=(), pad=(), p_value=None,
            count_include_pad=None):
    """Every output element from its window, clipped to the (padded) input."""
    spatial = data.shape[2:]
    if global_pool:
        kernel, stride, pad = tuple(spatial), (1,) * len(spatial), (0,) * len(spatial)
    stride, _, pad = _geometry(kernel, stride, (), pad)
    rounding = math.ceil if pooling_convention == "full" else math.floor
    out_size = [int(rounding((n + 2 * p - k) / s)) + 1
                for n, k, s, p in zip(spatial, kernel, stride, pad)]
    out = np.zeros(data.shape[:2] + tuple(out_size))
    for position in np.ndindex(*out_size):
        starts = [o * s - p for o, s, p in zip(position, stride, pad)]
        ends = [start + k for start, k in zip(starts, kernel)]
        inside = tuple(slice(max(a, 0), min(b, n)) for a, b, n in zip(starts, ends, spatial))
        values = data[(slice(None), slice(None)) + inside].reshape(data.shape[:2] + (-1,))
        if pool_type == "max":         # MXNet's rule: from the lowest finite value, a tap
            kind = np.finfo if values.dtype.kind == "f" else np.iinfo    # only when greater
            result = np.full(values.shape[:-1], kind(values.dtype).min, dtype=values.dtype)
            for tap in range(values.shape[-1]):
                result = np.where(values[..., tap] > result, values[..., tap], result)
        elif pool_type == "lp":
            result = (values ** (p_value or 1)).sum(-1) ** (1.0 / (p_value or 1))
        else:
            result = values.sum(-1)
        if pool_type == "avg":
            if count_include_pad in (None, True):
                count = math.prod(min(b, n + p) - max(a, -p)
                                  for a, b, n, p in zip(starts, ends, spatial, pad))
            else:
                count = math.prod(s.stop - s.start for s in inside)
            result = result / max(count, 1)
        out[(slice(None), slice(None)) + position] = result
    return out


# -- recurrent layers and sequences ----------------------------------------------------------
_GATE_COUNT = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _cell(mode, x, h, c, w_ih, w_hh, b_ih, b_hh):
    """One time step of one cell, from the textbook equations; returns (h, c)."""
    if mode == "lstm":
        i, f, g, o = np.split(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        return _sigmoid(o) * np.tanh(c), c
    if mode == "gru":
        x_r, x_z, x_n = np.split(x @ w_ih.T + b_ih, 3, axis=1)
        h_r, h_z, h_n = np.split(h @ w_hh.T + b_hh, 3, axis=1)
        reset, update = _sigmoid(x_r + h_r), _sigmoid(x_z + h_z)
        new = np.tanh(x_n + reset * h_n)
        return (1 - update) * new + update * h, c
    pre = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
    return (np.maximum(pre, 0) if mode == "rnn_relu" else np.tanh(pre)), c


def _unpack_rnn(parameters, mode, input_size, hidden, layers, directions, projection=None):
    """Per (layer, direction): w_ih, w_hh, b_ih, b_hh, w_hr; all weights come first, then
    biases.  ``w_hr`` (projection, hidden) follows w_hh with a projection; else it is None."""
    rows = _GATE_COUNT[mode] * hidden
    recurrent = projection or hidden
    cursor = 0

    def take(*shape):
        nonlocal cursor
        size = math.prod(shape)
        cursor += size
        return parameters[cursor - size:cursor].reshape(shape)

    weights = [(take(rows, input_size if layer == 0 else directions * recurrent),
                take(rows, recurrent), take(projection, hidden) if projection else None)
               for layer in range(layers) for _ in range(directions)]
    biases = [(take(rows), take(rows)) for _ in range(layers * directions)]
    return [w[:2] + b + w[2:] for w, b in zip(weights, biases)]


def rnn(np, data, parameters, state, state_cell=None, state_size=1, num_layers=1, mode="lstm",
        bidirectional=False, state_outputs=False, projection_size=None):
    """With ``projection_size`` (LSTMP) the output and the state fed back are ``W_hr h``."""
    directions = 2 if bidirectional else 1
    cells = _unpack_rnn(parameters, mode, data.shape[2], state_size, num_layers, directions,
                        projection_size)
    inputs, final_h, final_c = data, [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            h = state[index]
            c = None if state_cell is None else state_cell[index]
            steps = range(len(inputs))
            sequence = [None] * len(inputs)
            for t in (reversed(steps) if direction == 1 else steps):
                h, c = _cell(mode, inputs[t], h, c, *cells[index][:4])
                if projection_size:
                    h = h @ cells[index][4].T
                sequence[t] = h
            outputs.append(np.stack(sequence))
            final_h.append(h)
            final_c.append(c)
        inputs = np.concatenate(outputs, axis=-1)
    if not state_outputs:
        return inputs
    results = [inputs, np.stack(final_h)]
    return results + ([np.stack(final_c)] if mode == "lstm" else [])


def _lengths(data, sequence_length, axis):
    batch = data.shape[1 - axis]
    if sequence_length is None:
        return [data.shape[axis]] * batch
    return [int(length) for length in sequence_length]


def sequence_mask(np, data, sequence_length=None, axis=0, value=0.0):
    out = np.moveaxis(data.copy(), axis, 0)        # (time, batch, ...)
    for sample, length in enumerate(_lengths(data, sequence_length, axis)):
        out[length:, sample] = value
    return np.moveaxis(out, 0, axis)


def sequence_last(np, data, sequence_length=None, axis=0):
    steps = np.moveaxis(data, axis, 0)
    lengths = _lengths(data, sequence_length, axis)
    return np.stack([steps[length - 1, sample] for sample, length in enumerate(lengths)])


def sequence_reverse(np, data, sequence_length=None, axis=0):
    out = data.copy()
    for sample, length in enumerate(_lengths(data, sequence_length, axis)):
        out[:length, sample] = data[:length, sample][::-1]
    return out


def _collapse(path, blank):
    """The label a CTC path spells: merge repeated classes, then drop the blanks."""
    merged = [c for t, c in enumerate(path) if t == 0 or c != path[t - 1]]
    return [c for c in merged if c != blank]


def ctc_loss(np, data, label, *lengths, use_data_lengths=False, use_label_lengths=False,
             blank_label="first"):
    """Minus the log of the summed probability of every path that spells the label.

    All ``C ** T`` paths are listed, so keep ``T`` and ``C`` tiny.
    """
    steps, batch, classes = data.shape
    blank, padding = (0, 0) if blank_label == "first" else (classes - 1, -1)
    lengths = list(lengths)
    data_lengths = lengths.pop(0).astype(int) if use_data_lengths else [steps] * batch
    label_lengths = lengths.pop(0).astype(int) if use_label_lengths else None
    probs = np.exp(data) / np.exp(data).sum(axis=2, keepdims=True)
    losses = []
    for n in range(batch):
        target = [int(value) for value in label[n]]
        if label_lengths is not None:
            target = target[:label_lengths[n]]
        elif padding in target:
            target = target[:target.index(padding)]
        total = sum(math.prod(probs[t, n, c] for t, c in enumerate(path))
                    for path in itertools.product(range(classes), repeat=int(data_lengths[n]))
                    if _collapse(path, blank) == target)
        losses.append(-np.log(total))
    return np.array(losses)


# -- indexing ----------------------------------------------------------------------------------
def index(np, data, *index_arrays, key):
    """``data[key]`` where ``key`` is the operator's normalized form of a numpy key."""
    readable = {"int": lambda item: item[1], "slice": lambda item: slice(*item[1:]),
                "none": lambda item: None, "ellipsis": lambda item: Ellipsis,
                "array": lambda item: index_arrays[item[1]].astype(int)}
    result = data[tuple(readable[item[0]](item) for item in key)]
    return np.asarray(result).reshape(result.shape or (1,))


# -- spatial transformers: one output point at a time ---------------------------------------
def _read_pixel(image, y, x):
    """``image[:, y, x]`` or zeros outside the picture."""
    if 0 <= y < image.shape[1] and 0 <= x < image.shape[2]:
        return image[:, y, x]
    return np.zeros(image.shape[0])


def bilinear_sampler(np, data, grid):
    n, c, height, width = data.shape
    out = np.zeros((n, c) + grid.shape[2:])
    for b, i, j in itertools.product(range(n), range(grid.shape[2]), range(grid.shape[3])):
        x = (grid[b, 0, i, j] + 1) * (width - 1) / 2
        y = (grid[b, 1, i, j] + 1) * (height - 1) / 2
        x0, y0 = math.floor(x), math.floor(y)
        for yy, xx in itertools.product((y0, y0 + 1), (x0, x0 + 1)):
            weight = (1 - abs(y - yy)) * (1 - abs(x - xx))
            out[b, :, i, j] += weight * _read_pixel(data[b], yy, xx)
    return out


def grid_generator(np, data, transform_type, target_shape=(0, 0)):
    if transform_type == "warp":
        height, width = data.shape[2:]
        out = np.zeros(data.shape)
        for i, j in itertools.product(range(height), range(width)):
            out[:, 0, i, j] = (j + data[:, 0, i, j]) * 2 / (width - 1) - 1
            out[:, 1, i, j] = (i + data[:, 1, i, j]) * 2 / (height - 1) - 1
        return out
    height, width = target_shape
    out = np.zeros((data.shape[0], 2, height, width))
    for b, i, j in itertools.product(range(data.shape[0]), range(height), range(width)):
        point = np.array([-1 + 2 * j / (width - 1), -1 + 2 * i / (height - 1), 1.0])
        out[b, :, i, j] = data[b].reshape(2, 3) @ point
    return out


def spatial_transformer(np, data, loc, target_shape, **_):
    return bilinear_sampler(np, data, grid_generator(np, loc, "affine", target_shape))


def bilinear_resize(np, x, height=1, width=1, mode="size", align_corners=True, **_):
    """Every output pixel from the four input pixels around its source point."""
    in_h, in_w = x.shape[2:]
    if mode == "to_odd_up":
        height, width = in_h + (in_h % 2 == 0), in_w + (in_w % 2 == 0)

    def source(out, size_in, size_out):
        if align_corners:
            return out * (size_in - 1) / (size_out - 1) if size_out > 1 else 0.0
        return max((out + 0.5) * size_in / size_out - 0.5, 0.0)

    y = np.zeros(x.shape[:2] + (height, width))
    for i, j in itertools.product(range(height), range(width)):
        sy, sx = source(i, in_h, height), source(j, in_w, width)
        y0, x0 = min(int(sy), in_h - 1), min(int(sx), in_w - 1)
        y1, x1 = min(y0 + 1, in_h - 1), min(x0 + 1, in_w - 1)
        wy, wx = sy - y0, sx - x0
        y[:, :, i, j] = ((1 - wy) * ((1 - wx) * x[:, :, y0, x0] + wx * x[:, :, y0, x1])
                         + wy * ((1 - wx) * x[:, :, y1, x0] + wx * x[:, :, y1, x1]))
    return y


def correlation(np, a, b, kernel_size=1, max_displacement=1, stride1=1, stride2=1,
                pad_size=0, is_multiply=True):
    """Every output element as its patch sum, one displacement at a time."""
    pad = [(0, 0), (0, 0), (pad_size, pad_size), (pad_size, pad_size)]
    a, b = np.pad(a, pad), np.pad(b, pad)
    border = max_displacement + (kernel_size - 1) // 2
    height = math.ceil((a.shape[2] - 2 * border) / stride1)
    width = math.ceil((a.shape[3] - 2 * border) / stride1)
    radius = max_displacement // stride2
    side = 2 * radius + 1
    out = np.zeros((a.shape[0], side * side, height, width))
    for channel, i, j in itertools.product(range(side * side), range(height), range(width)):
        dx = (channel % side - radius) * stride2
        dy = (channel // side - radius) * stride2
        y, x = i * stride1 + max_displacement, j * stride1 + max_displacement
        for h, w in itertools.product(range(kernel_size), range(kernel_size)):
            p, q = a[:, :, y + h, x + w], b[:, :, y + dy + h, x + dx + w]
            out[:, channel, i, j] += (p * q if is_multiply else abs(p - q)).sum(axis=1)
    return out / (kernel_size ** 2 * a.shape[1])


def psroi_pooling(np, data, rois, spatial_scale, output_dim, pooled_size, group_size=0):
    """Every output element as the mean of its bin of its position's channel."""
    group = group_size or pooled_size
    height, width = data.shape[2:]
    out = np.zeros((len(rois), output_dim, pooled_size, pooled_size))
    c_round = lambda v: math.floor(v + 0.5) if v >= 0 else math.ceil(v - 0.5)   # noqa: E731
    for r, (batch, x1, y1, x2, y2) in enumerate(rois):
        sw, sh = c_round(x1) * spatial_scale, c_round(y1) * spatial_scale
        ew, eh = (c_round(x2) + 1) * spatial_scale, (c_round(y2) + 1) * spatial_scale
        bh, bw = max(eh - sh, 0.1) / pooled_size, max(ew - sw, 0.1) / pooled_size
        for k, i, j in itertools.product(range(output_dim), range(pooled_size),
                                         range(pooled_size)):
            top = min(max(math.floor(i * bh + sh), 0), height)
            bottom = min(max(math.ceil((i + 1) * bh + sh), 0), height)
            left = min(max(math.floor(j * bw + sw), 0), width)
            right = min(max(math.ceil((j + 1) * bw + sw), 0), width)
            gi, gj = min(i * group // pooled_size, group - 1), min(j * group // pooled_size,
                                                                    group - 1)
            if bottom > top and right > left:
                channel = (k * group + gi) * group + gj
                out[r, k, i, j] = data[int(batch), channel, top:bottom, left:right].mean()
    return out


# -- the gamma function: Python's math module, an implementation independent of minimx's ----------
def gamma(np, x):
    return np.vectorize(math.gamma, otypes=[np.float64])(x)


def gammaln(np, x):
    return np.vectorize(math.lgamma, otypes=[np.float64])(x)


# -- sliding blocks: one loop over (channel, kernel offset, block) ------------------------------
def _block_positions(spatial, kernel, stride, dilate, pad):
    """Each (column row offset, block number, padded input position) of the blocks."""
    rank = len(kernel)
    stride, dilate, pad = stride or (1,) * rank, dilate or (1,) * rank, pad or (0,) * rank
    blocks = [(n + 2 * p - d * (k - 1) - 1) // s + 1
              for n, k, s, d, p in zip(spatial, kernel, stride, dilate, pad)]
    for t, offset in enumerate(itertools.product(*(range(k) for k in kernel))):
        for b, block in enumerate(itertools.product(*(range(m) for m in blocks))):
            yield t, b, tuple(o * d + i * s for o, d, i, s in zip(offset, dilate, block,
                                                                    stride))


def _padded_zeros(np, shape, pad):
    return np.zeros(shape[:2] + tuple(n + 2 * p for n, p in zip(shape[2:], pad)))


def im2col(np, x, kernel, stride=(), dilate=(), pad=()):
    pad = pad or (0,) * len(kernel)
    padded = _padded_zeros(np, x.shape, pad)
    padded[(slice(None), slice(None)) + tuple(slice(p, p + n) for p, n in
                                              zip(pad, x.shape[2:]))] = x
    taps = math.prod(kernel)
    positions = list(_block_positions(x.shape[2:], kernel, stride, dilate, pad))
    out = np.zeros((x.shape[0], x.shape[1] * taps, len(positions) // taps))
    for c in range(x.shape[1]):
        for t, b, where in positions:
            out[:, c * taps + t, b] = padded[(slice(None), c) + where]
    return out


def col2im(np, columns, output_size, kernel, stride=(), dilate=(), pad=()):
    pad = pad or (0,) * len(kernel)
    taps = math.prod(kernel)
    shape = (columns.shape[0], columns.shape[1] // taps) + tuple(output_size)
    padded = _padded_zeros(np, shape, pad)
    for c in range(shape[1]):
        for t, b, where in _block_positions(output_size, kernel, stride, dilate, pad):
            padded[(slice(None), c) + where] += columns[:, c * taps + t, b]
    return padded[(slice(None), slice(None)) + tuple(slice(p, p + n) for p, n in
                                                     zip(pad, output_size))]


REFERENCES = {
    "gamma": gamma, "gammaln": gammaln, "im2col": im2col, "col2im": col2im,
    "FullyConnected": fully_connected, "Activation": activation, "LeakyReLU": leaky_relu,
    "softmax": softmax, "softmax_cross_entropy": softmax_cross_entropy,
    "BatchNorm": batch_norm, "_contrib_SyncBatchNorm": sync_batch_norm,
    "BatchNorm_v1": sync_batch_norm,
    "LayerNorm": layer_norm, "InstanceNorm": instance_norm,
    "GroupNorm": group_norm,
    "L2Normalization": l2_normalization, "LRN": lrn,
    "Convolution": convolution, "Deconvolution": deconvolution,
    "_contrib_DeformableConvolution": deformable_convolution,
    "_contrib_ModulatedDeformableConvolution": modulated_deformable_convolution,
    "Pooling": pooling,
    "RNN": rnn, "CTCLoss": ctc_loss, "SequenceMask": sequence_mask, "SequenceLast": sequence_last,
    "SequenceReverse": sequence_reverse, "_index": index,
    "BilinearSampler": bilinear_sampler, "GridGenerator": grid_generator,
    "SpatialTransformer": spatial_transformer, "_contrib_BilinearResize2D": bilinear_resize,
    "Correlation": correlation, "_contrib_PSROIPooling": psroi_pooling,
}
REFERENCES.update(OUTPUT_REFERENCES)
REFERENCES.update(DETECTION_REFERENCES)
REFERENCES.update(ADAMW_REFERENCES)

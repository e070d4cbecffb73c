"""Winograd's minimal filtering F(2x2, 3x3): a 3x3 stride-1 convolution with fewer products.

Lesson: 09-gluon.  The fast kernel beside the plain im2col + GEMM of ``conv_kernels.py``,
which stays the reference (``tests/op/test_winograd.py`` compares the two).

A 2x2 block of outputs of a 3x3 filter reads a 4x4 tile of the input.  Computed directly
that is 2 * 2 * 9 = 36 multiplications per channel; Winograd does it with 16:

    Y = A^T [ (G g G^T) * (B^T d B) ] A          (* elementwise over the 4x4 positions)

``g`` is the 3x3 filter, ``d`` the 4x4 input tile, and ``B^T``, ``G``, ``A^T`` are small
constant matrices of 0, 1, -1 and 1/2, so the transforms are additions.  Summed over the
input channels, each of the 16 positions of the transformed tile is one matrix product
``(tiles, C) x (C, F)``: 16 products with 4 times fewer rows than im2col's 9 products at
each output position, 2.25 times fewer multiplications in all.  The transforms cost
passes over memory instead; they run channels-last (``(N, H, W, C)``, so every numpy call
works on runs of C values) and a few samples at a time, so that the transformed tiles of
a chunk (``_CHUNK_BYTES``) stay in the cache between their transform and their product.

The weight gradient is the same identity transposed: the output gradient's 2x2 tiles go
through ``A``, the input's tiles through ``B^T``, their 16 products are summed over all
tiles, and ``G^T ... G`` brings the 4x4 result back to 3x3.

CPU time on one core, batch 64, 3x3 pad 1 (``bench/conv_layers.py`` has MXNet 1.9.1
beside): 64 -> 64 channels at 24x24 forward 38 ms (im2col) -> 26 ms (MXNet 26 ms); 128 at
12x12 33 -> 20 ms (MXNet 23); 256 at 6x6 32 -> 20 ms (MXNet 20).  With fewer than 64
channels the transforms cost more than the products save (32 at 16x16: 4.5 -> 5.0 ms),
and on outputs smaller than 4x4 the 2x2 tiles hang over the plane's edge and compute
outputs that are thrown away (512 at 3x3: 35 ms either way), so ``suits`` keeps those on
im2col.  The rounding differs from im2col's by a
few units in the last place (float32 relative error 4e-7 to 7e-7 against float64, im2col's
4e-7 to 7e-7).
"""
import math

# The transformed tiles of one chunk of samples, about this many bytes (1 to 2 times the
# L2 cache of a core): 64 -> 64 channels at 24x24 on one core, 0.5 / 2 / 16 MiB chunks:
# 29.2 / 27.2 / 34.7 ms.  A chunk also holds at least as many tiles as there are filters
# (``_chunk``): each chunk's 16 products read all the transformed filters, and with 512
# channels a 2 MiB chunk has 64 tiles and reads 16 MiB of filters for them (64 x 512 x
# 7x7 on one core: 153 ms at 2 MiB, 115 at 8, 111 at 32, im2col 154).
_CHUNK_BYTES = 2 ** 21
_MIN_CHANNELS = 64
# Where BLAS has two threads, the products run twice as fast and the transforms (numpy,
# one thread) do not: 64 channels pay off only on small planes (at 24x24 forward 23.9 ->
# 21.4 ms, at 32x32 41.9 -> 49.4), 128 and more at every size measured.
_WIDE_CHANNELS = 128
_MAX_NARROW_POSITIONS = 24 * 24
_MIN_TILE_USE = 0.75        # share of the 2x2 tiles' outputs that are real outputs
# Tiles in the batch per filter below which transforming the filters costs more than the
# products save (batch 1, 512 channels at 7x7: 16 tiles, 3.1 ms im2col, 9.1 Winograd).
_MIN_TILES_PER_FILTER = 0.25
_FLOATS = ("float32", "float64")      # a numpy dtype equals its name


def suits(xp, data_shape, dtype, filters, geometry, groups, out_size):
    """Whether a convolution of this shape takes Winograd's path: a 2-D 3x3 kernel with
    stride and dilation 1, no channel groups, float32 or float64 on the CPU, many channels
    in and out, output planes that fill the 2x2 tiles, and enough tiles in the batch."""
    if tuple(geometry.kernel) != (3, 3) or tuple(geometry.stride) != (1, 1) \
            or tuple(geometry.dilate) != (1, 1) or groups != 1:
        return False
    if xp.__name__ != "numpy" or dtype not in _FLOATS:
        return False
    narrowest, positions = min(data_shape[1], filters), math.prod(out_size)
    if narrowest < _MIN_CHANNELS or (
            narrowest < _WIDE_CHANNELS and positions > _MAX_NARROW_POSITIONS):
        return False
    tiles = math.prod(_tiles(out_size))
    return positions >= _MIN_TILE_USE * 4 * tiles and \
        data_shape[0] * tiles >= _MIN_TILES_PER_FILTER * filters


def _tiles(out_size):
    return tuple(-(-n // 2) for n in out_size)


def _chunk(batch, tiles, width, filters):
    """Samples per chunk: their transformed tiles, 16 * tiles * width values, fill about
    ``_CHUNK_BYTES``, and they are at least as many tiles as ``filters``."""
    per_sample = math.prod(tiles)
    rows = max(_CHUNK_BYTES // (16 * width * 4), filters)
    return max(1, min(batch, -(-rows // per_sample)))


def filter_transform(xp, weight):
    """``G g G^T`` of every ``(3, 3)`` filter of ``(F, C, 3, 3)``: ``(4, 4, F, C)``."""
    half = weight.dtype.type(0.5)
    rows = xp.empty((4, 3) + weight.shape[:2], dtype=weight.dtype)   # G g
    for j in range(3):
        _g_apply(xp, weight[:, :, 0, j], weight[:, :, 1, j], weight[:, :, 2, j], rows[:, j],
                 half)
    out = xp.empty((4, 4) + weight.shape[:2], dtype=weight.dtype)    # (G g) G^T
    for a in range(4):
        _g_apply(xp, rows[a, 0], rows[a, 1], rows[a, 2], out[a], half)
    return out


def _g_apply(xp, g0, g1, g2, out, half):
    """``G (g0, g1, g2)``: ``(g0, (g0 + g1 + g2) / 2, (g0 - g1 + g2) / 2, g2)`` into
    ``out[0..3]``."""
    ends = (g0 + g2) * half
    middle = g1 * half
    xp.copyto(out[0], g0)
    xp.add(ends, middle, out=out[1])
    xp.subtract(ends, middle, out=out[2])
    xp.copyto(out[3], g2)


def _b_apply(xp, d0, d1, d2, d3, out):
    """``B^T (d0, d1, d2, d3)``: ``(d0 - d2, d1 + d2, d2 - d1, d1 - d3)`` into
    ``out[0..3]``."""
    xp.subtract(d0, d2, out=out[0])
    xp.add(d1, d2, out=out[1])
    xp.subtract(d2, d1, out=out[2])
    xp.subtract(d1, d3, out=out[3])


def input_transform(xp, tiles_in, tile_rows, out, buffer):
    """``B^T d B`` of every 4x4 tile (stride 2) of a channels-last padded chunk
    ``(n, 2 th + 2, 2 tw + 2, C)``: into ``out`` ``(4, 4, n, th, tw, C)``.  ``buffer``
    ``(4, n, th, 2 tw + 2, C)`` holds the tiles' rows transformed (``B^T d``)."""
    th, tw = tile_rows
    rows = [tiles_in[:, k:k + 2 * th - 1:2] for k in range(4)]
    _b_apply(xp, *rows, buffer)
    for a in range(4):
        _b_apply(xp, *(buffer[a][:, :, k:k + 2 * tw - 1:2] for k in range(4)), out[a])


def _at_apply(xp, m0, m1, m2, m3, out):
    """``A^T (m0, m1, m2, m3)``: ``(m0 + m1 + m2, m1 - m2 - m3)`` into ``out[0..1]``."""
    xp.add(m0, m1, out=out[0])
    xp.add(out[0], m2, out=out[0])
    xp.subtract(m1, m2, out=out[1])
    xp.subtract(out[1], m3, out=out[1])


def output_transform(xp, products, out, buffer):
    """``A^T m A`` of the 16 products ``(4, 4, n, th, tw, F)``: into ``out`` ``(n, th, 2,
    tw, 2, F)`` (the 2x2 outputs of each tile).  ``buffer`` ``(2, 4, n, th, tw, F)`` holds
    the products' columns transformed (``A^T m``)."""
    for b in range(4):
        _at_apply(xp, *(products[a, b] for a in range(4)), buffer[:, b])
    for i in range(2):
        _at_apply(xp, *(buffer[i, b] for b in range(4)),
                  (out[:, :, i, :, 0], out[:, :, i, :, 1]))


class _Chunks:
    """The buffers a pass over the batch reuses, chunk by chunk: the channels-last padded
    input ``tiles_in`` (its zero border is written once: each chunk overwrites only the
    data inside it, so the input is not padded first), the rows buffer, and the
    transformed tiles ``v`` ``(4, 4, n, th, tw, C)``."""

    def __init__(self, xp, data, pad, tiles, chunk):
        self.xp, self.data, self.pad, self.tiles, self.chunk = xp, data, pad, tiles, chunk
        channels, dtype = data.shape[1], data.dtype
        th, tw = tiles
        self.tiles_in = xp.zeros((chunk, 2 * th + 2, 2 * tw + 2, channels), dtype=dtype)
        self.rows = xp.empty((4, chunk, th, 2 * tw + 2, channels), dtype=dtype)
        self.v = xp.empty((4, 4, chunk, th, tw, channels), dtype=dtype)

    def __iter__(self):
        """For each chunk: its first sample, its size, and its transformed tiles as
        ``(16, n * th * tw, C)``."""
        batch, channels, height, width = self.data.shape
        (top, left), (th, tw) = self.pad, self.tiles
        for start in range(0, batch, self.chunk):
            n = min(self.chunk, batch - start)
            tiles_in = self.tiles_in[:n]
            tiles_in[:, top:top + height, left:left + width] = \
                self.data[start:start + n].transpose(0, 2, 3, 1)
            v = self.v[:, :, :n]
            input_transform(self.xp, tiles_in, self.tiles, v, self.rows[:, :n])
            yield start, n, v.reshape(16, n * th * tw, channels)


def out_size_of(data_shape, pad):
    """Output planes of a 3x3 stride-1 convolution of ``(N, C, H, W)`` padded by ``pad``."""
    return tuple(n + 2 * p - 2 for n, p in zip(data_shape[2:], pad))


def convolve(xp, data, weight, pad):
    """``data (N, C, H, W)``, padded by ``pad`` zeros on each side, correlated with
    ``weight (F, C, 3, 3)``, stride 1: ``(N, F, H + 2 pad - 2, W + 2 pad - 2)``."""
    batch, channels = data.shape[:2]
    filters = weight.shape[0]
    out_size = out_size_of(data.shape, pad)
    tiles = _tiles(out_size)
    chunk = _chunk(batch, tiles, max(channels, filters), filters)
    # (16, C, F): the products' right-hand sides, read transposed as they lie
    filters_t = filter_transform(xp, weight).reshape(16, filters, channels).transpose(0, 2, 1)
    th, tw = tiles
    products = xp.empty((16, chunk * th * tw, filters), dtype=data.dtype)
    buffer = xp.empty((2, 4, chunk, th, tw, filters), dtype=data.dtype)
    outputs = xp.empty((chunk, th, 2, tw, 2, filters), dtype=data.dtype)
    result = xp.empty((batch, filters) + out_size, dtype=data.dtype)
    for start, n, v in _Chunks(xp, data, pad, tiles, chunk):
        m = xp.matmul(v, filters_t, out=products[:, :n * th * tw])
        output_transform(xp, m.reshape(4, 4, n, th, tw, filters), outputs[:n],
                         buffer[:, :, :n])
        planes = outputs[:n].reshape(n, 2 * th, 2 * tw, filters)
        result[start:start + n] = planes[:, :out_size[0], :out_size[1]].transpose(0, 3, 1, 2)
    return result


def _a_apply(xp, y0, y1, out):
    """``A (y0, y1)``: ``(y0, y0 + y1, y0 - y1, -y1)`` into ``out[0..3]``."""
    xp.copyto(out[0], y0)
    xp.add(y0, y1, out=out[1])
    xp.subtract(y0, y1, out=out[2])
    xp.negative(y1, out=out[3])


def grad_transform(xp, grads, out, buffer):
    """``A dy A^T`` of every 2x2 tile of a channels-last output gradient ``(n, th, 2, tw,
    2, F)``: into ``out`` ``(4, 4, n, th, tw, F)``; ``buffer`` ``(4, 2, n, th, tw, F)``."""
    for j in range(2):
        _a_apply(xp, grads[:, :, 0, :, j], grads[:, :, 1, :, j], buffer[:, j])
    for a in range(4):
        _a_apply(xp, buffer[a, 0], buffer[a, 1], out[a])


def weight_grad(xp, out_grad, data, pad):
    """Gradient in the weight of ``convolve(xp, data, weight, pad)``: ``(F, C, 3, 3)``
    from its output gradient ``(N, F, H', W')``."""
    batch, filters = out_grad.shape[:2]
    channels = data.shape[1]
    out_size = out_grad.shape[2:]
    tiles = _tiles(out_size)
    th, tw = tiles
    chunk = _chunk(batch, tiles, max(channels, filters), filters)
    dtype = data.dtype
    grads = xp.zeros((chunk, th, 2, tw, 2, filters), dtype=dtype)
    planes = grads.reshape(chunk, 2 * th, 2 * tw, filters)
    buffer = xp.empty((4, 2, chunk, th, tw, filters), dtype=dtype)
    transformed = xp.empty((4, 4, chunk, th, tw, filters), dtype=dtype)
    total = xp.zeros((16, filters, channels), dtype=dtype)
    product = xp.empty_like(total)
    for start, n, v in _Chunks(xp, data, pad, tiles, chunk):
        planes[:n, :out_size[0], :out_size[1]] = out_grad[start:start + n].transpose(0, 2, 3, 1)
        d = transformed[:, :, :n]
        grad_transform(xp, grads[:n], d, buffer[:, :, :n])
        total += xp.matmul(d.reshape(16, n * th * tw, filters).transpose(0, 2, 1), v,
                           out=product)
    return _filter_transform_adjoint(xp, total.reshape(4, 4, filters, channels))


def _gt_apply(xp, z0, z1, z2, z3, out, half):
    """``G^T (z0, z1, z2, z3)``: ``(z0 + (z1 + z2) / 2, (z1 - z2) / 2, (z1 + z2) / 2 +
    z3)`` into ``out[0..2]``."""
    both = (z1 + z2) * half
    xp.add(z0, both, out=out[0])
    xp.multiply(z1 - z2, half, out=out[1])
    xp.add(both, z3, out=out[2])


def _filter_transform_adjoint(xp, transformed):
    """``G^T u G`` of ``(4, 4, F, C)``: the weight gradient ``(F, C, 3, 3)``."""
    half = transformed.dtype.type(0.5)
    rows = xp.empty((3, 4) + transformed.shape[2:], dtype=transformed.dtype)
    for b in range(4):
        _gt_apply(xp, *(transformed[a, b] for a in range(4)), rows[:, b], half)
    out = xp.empty((3, 3) + transformed.shape[2:], dtype=transformed.dtype)
    for a in range(3):
        _gt_apply(xp, *(rows[a, b] for b in range(4)), out[a], half)
    return xp.ascontiguousarray(out.transpose(2, 3, 0, 1))

"""``mx.contrib.amp``: automatic mixed precision -- not part of minimx.

Lesson: 15-gpus-with-cupy.  MXNet's AMP rewrites a graph to compute in float16 where that
is safe (on NVIDIA GPUs with tensor cores).  minimx computes in the dtype you give it
(``net.cast('float16')`` works); it has no automatic rewriting.  The names below exist
so that code importing them loads; calling them says so.
"""
from ...base import MXNetError

__all__ = ["init", "init_trainer", "scale_loss", "unscale", "convert_model",
           "convert_hybrid_block", "convert_symbol", "list_fp16_ops", "list_fp32_ops"]


def _refuse(name):
    def refuse(*args, **kwargs):
        raise MXNetError(f"amp.{name}: automatic mixed precision is not part of minimx; cast "
                         f"the model yourself (block.cast('float16'))")
    refuse.__name__ = name
    return refuse


init = _refuse("init")
init_trainer = _refuse("init_trainer")
scale_loss = _refuse("scale_loss")
unscale = _refuse("unscale")
convert_model = _refuse("convert_model")
convert_hybrid_block = _refuse("convert_hybrid_block")
convert_symbol = _refuse("convert_symbol")
list_fp16_ops = _refuse("list_fp16_ops")
list_fp32_ops = _refuse("list_fp32_ops")

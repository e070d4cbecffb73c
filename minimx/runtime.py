"""``mx.runtime``: which features this build has (MXNet's ``Features``).

Lesson: 01-overview.  Mirrors ``python/mxnet/runtime.py``.  MXNet reports the options
its C++ library was compiled with; minimx reports what its Python implementation offers
here: CUDA when CuPy finds a GPU, a BLAS (numpy's), and none of the compiled extras.
"""
import collections

from .context import num_gpus

__all__ = ["Feature", "Features", "feature_list"]

Feature = collections.namedtuple("Feature", ["name", "enabled"])

_NAMES = ["CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3",
          "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE",
          "F16C", "JEMALLOC", "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK",
          "MKLDNN", "OPENCV", "CAFFE", "PROFILER", "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE",
          "SIGNAL_HANDLER", "DEBUG", "TVM_OP"]
_ENABLED = {"BLAS_OPEN", "LAPACK", "PROFILER", "DIST_KVSTORE", "INT64_TENSOR_SIZE"}


def feature_list():
    """Every feature with whether it is on."""
    gpu = num_gpus() > 0
    return [Feature(name, name in _ENABLED or (name == "CUDA" and gpu)) for name in _NAMES]


class Features(collections.OrderedDict):
    """Feature name -> Feature; ``is_enabled(name)`` raises for an unknown name."""

    def __init__(self):
        super().__init__((feature.name, feature) for feature in feature_list())

    def __repr__(self):
        return "[" + ", ".join(("✔ " if f.enabled else "✖ ") + f.name
                               for f in self.values()) + "]"

    def is_enabled(self, feature_name):
        name = feature_name.upper()
        if name not in self:
            raise RuntimeError(f"Feature '{feature_name}' is unknown, known features are: "
                               f"{list(self)}")
        return self[name].enabled

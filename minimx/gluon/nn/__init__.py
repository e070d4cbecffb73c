"""``gluon.nn``: layers and containers.

Lesson: 09-gluon.  Mirrors ``python/mxnet/gluon/nn/``.
"""
from ..block import Block
from ..hybrid_block import HybridBlock
from ..symbol_block import SymbolBlock
from .sequential import HybridSequential, Sequential
from .activations import ELU, GELU, SELU, Activation, LeakyReLU, PReLU, Swish
from .basic_layers import (Concurrent, Dense, Dropout, Embedding, Flatten, HybridConcurrent,
                           HybridLambda, Identity, Lambda)
from .norm_layers import BatchNorm, GroupNorm, InstanceNorm, LayerNorm
from .conv_layers import (AvgPool1D, AvgPool2D, AvgPool3D, Conv1D, Conv1DTranspose, Conv2D,
                          Conv2DTranspose, Conv3D, Conv3DTranspose, GlobalAvgPool1D,
                          GlobalAvgPool2D, GlobalAvgPool3D, GlobalMaxPool1D, GlobalMaxPool2D,
                          GlobalMaxPool3D, MaxPool1D, MaxPool2D, MaxPool3D, ReflectionPad2D)

__all__ = ["Block", "HybridBlock", "SymbolBlock", "Sequential", "HybridSequential",
           # basic_layers (Identity and the Concurrent blocks live in gluon.contrib.nn in MXNet)
           "Dense", "Dropout", "Embedding", "Flatten", "Lambda", "HybridLambda", "Identity",
           "Concurrent", "HybridConcurrent",
           # norm_layers
           "BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm",
           # activations
           "Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "GELU",
           # conv_layers
           "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose",
           "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D",
           "GlobalAvgPool2D", "GlobalAvgPool3D", "ReflectionPad2D"]

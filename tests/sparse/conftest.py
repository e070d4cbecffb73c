"""Sparse storage lives on the CPU (scipy.sparse; ``sparse_array.check_host_context``).

``on_cpu``: the tests of sparse behaviour make their arrays on ``mx.cpu()`` whatever
``MINIMX_TEST_CTX`` says (as MXNet's reference, on the CPU, makes them);
``test_sparse_on_device.py`` checks what a device context gets instead.
"""
import pytest

import minimx as mx


@pytest.fixture
def on_cpu():
    with mx.cpu():
        yield

"""``Executor.debug_str`` ends with MXNet's memory line, ``Total <n> MB allocated``.

MXNet 1.9.1 prints the bytes its memory plan pools for the intermediate results (of the
forward and backward graph when gradients are wanted) in whole MB; minimx prints its own
plan's (``plan_report(is_train).memory_planned``).  The two planners differ (MXNet runs
``relu`` in place, minimx fuses element-wise chains), so the numbers are compared with
their own plans; the line itself is compared with MXNet's.
"""
import re

from same_program import on_minimx, on_mxnet

import minimx as mx

PROGRAM = r"""
import json
x = mx.sym.var('x')
net = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=2048, name='fc')) * 2
lines = {}
for req in ('null', 'write'):
    ex = net.simple_bind(mx.cpu(), x=(1024, 256), grad_req=req)
    lines[req] = [line for line in ex.debug_str().splitlines() if 'allocated' in line]
print(json.dumps(lines))
"""
LINE = re.compile(r"^Total \d+ MB allocated$")


def test_memory_line_as_mxnet(mxnet_python):
    ours, theirs = on_minimx(PROGRAM), on_mxnet(mxnet_python, PROGRAM)
    for lines in (ours, theirs):
        for req in ("null", "write"):
            assert len(lines[req]) == 1 and LINE.match(lines[req][0]), lines


def test_memory_line_reports_the_plan():
    x = mx.sym.var("x")
    net = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=2048, name="fc")) * 2
    for req, training in (("null", False), ("write", True)):
        ex = net.simple_bind(mx.cpu(), x=(1024, 256), grad_req=req)
        planned = ex.plan_report(is_train=training).memory_planned
        assert planned >= 8 << 20                 # at least the 8 MB output of fc
        assert ex.debug_str().rstrip().endswith(f"Total {planned >> 20} MB allocated")

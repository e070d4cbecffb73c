"""``autograd.get_symbol`` (minimx/symbol/from_tape.py) against MXNet 1.9.1: node names
(``var<k>`` per symbol, ``node_<n>`` numbered when recorded), operators, attributes,
argument and output names, and recorded ``autograd.Function`` calls (``_CustomFunction``
nodes, which neither framework can run).  The test runs in a process that has recorded
before, so node numbers are compared from the first one the program records."""
import re

from same_program import on_minimx, on_mxnet

PROGRAM = r"""
import json
nd, autograd = mx.nd, mx.autograd
class Square(autograd.Function):
    def forward(self, x):
        self.save_for_backward(x)
        return x * x
    def backward(self, dy):
        x, = self.saved_tensors
        return 2 * x * dy
class SumDiff(autograd.Function):
    def forward(self, a, b):
        return a + b, a - b
    def backward(self, da, db):
        return da + db, da - db
def describe(s):
    graph = json.loads(s.tojson())
    return [s.list_arguments(), s.list_outputs(),
            [(n['op'], n['name'], n.get('attrs'), n['inputs']) for n in graph['nodes']]]
x = nd.array([1., 2.]); x.attach_grad()
y = nd.array([3., 4.]); y.attach_grad()
result = {}
with autograd.record():
    a = x * 2
with autograd.record():
    b = nd.relu(x + 1) * y
    c = Square()(b) + 1
    p, q = SumDiff()(x, c)
    d = p * q
for name, value in (('a', a), ('b', b), ('c', c), ('d', d)):
    result[name] = describe(autograd.get_symbol(value))
try:
    autograd.get_symbol(c).eval(var0=x, var1=y)
    result['eval'] = 'ran'
except mx.base.MXNetError:
    result['eval'] = 'refused'
print(json.dumps(result))
"""


def _from_first(text):
    numbers = [int(n) for n in re.findall(r"node_(\d+)", text)]
    first = min(numbers)
    return re.sub(r"node_(\d+)", lambda m: f"node_{int(m.group(1)) - first}", text)


def test_get_symbol_matches_mxnet(mxnet_python):
    import json
    ours = json.loads(_from_first(json.dumps(on_minimx(PROGRAM))))
    theirs = json.loads(_from_first(json.dumps(on_mxnet(mxnet_python, PROGRAM))))
    assert ours == theirs

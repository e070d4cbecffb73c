"""``mx.contrib.svrg_optimization``: stochastic variance-reduced gradient (SVRG) training.

Lesson: 12-training-with-module.  Mirrors ``python/mxnet/contrib/svrg_optimization/``.
SVRG (Johnson and Zhang 2013) keeps a snapshot of the weights and their full-data
gradient ``mu``, taken every ``update_freq`` epochs; each step then uses
``g(w) - g(w_snapshot) + mu`` on its batch: the same expectation as ``g(w)`` but a
variance that shrinks as ``w`` nears the snapshot.  Import ``svrg_module`` for
``SVRGModule`` and ``svrg_optimizer`` for ``_SVRGOptimizer``.
"""

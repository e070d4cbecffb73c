"""Interactive views of minimx's machinery (engine queue, symbol graphs, hybridize speedups).

They read minimx's public surface (engine events, Symbols, profiler traces); minimx never
imports this package.  The views themselves arrive with the widgets issue.
"""

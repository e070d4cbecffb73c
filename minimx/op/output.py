"""Operator family 'output' (being written)."""

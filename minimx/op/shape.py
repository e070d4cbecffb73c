"""Operator family 'shape' (being written)."""

"""Operator family 'conv' (being written)."""

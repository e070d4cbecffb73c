"""Operator family 'random' (being written)."""

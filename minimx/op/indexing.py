"""Operator family 'indexing' (being written)."""

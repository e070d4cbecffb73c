"""Operator family 'elemwise' (being written)."""

"""Operator family 'sequence' (being written)."""

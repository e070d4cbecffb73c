"""Operator family 'linalg' (being written)."""

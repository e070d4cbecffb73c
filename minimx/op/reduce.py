"""Operator family 'reduce' (being written)."""

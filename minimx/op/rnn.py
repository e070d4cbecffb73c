"""Operator family 'rnn' (being written)."""

"""``nd.save`` / ``nd.load`` (being written)."""

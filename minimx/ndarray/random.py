"""``nd.random``: samplers (being written)."""

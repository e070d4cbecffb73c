"""test utils placeholder replaced below."""

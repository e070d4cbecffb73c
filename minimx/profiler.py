"""Profiler placeholder replaced below."""

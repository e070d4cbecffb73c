"""Command-line tools: ``python -m minimx.tools.im2rec`` (image lists and RecordIO packing).

Mirrors MXNet's tools/ folder.
"""

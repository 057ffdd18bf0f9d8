"""Kernel compilation (compile.py, loader.py) and the on-disk kernel cache (cache.py)."""

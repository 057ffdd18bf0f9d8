"""The NVIDIA device pyshim presents to CUDA programs (identity.py)."""

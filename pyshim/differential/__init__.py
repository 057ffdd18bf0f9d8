"""Differential checks of the translator against NVIDIA's compilers (checks.py)."""

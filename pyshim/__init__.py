"""pyshim: run unmodified CUDA executables on AMD GPUs and on a CPU device."""

__version__ = "0.1.0"

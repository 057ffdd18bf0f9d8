"""The Python side of libcuda.so.1's embedded interpreter.

`api.h` is the embedding API (C calls these, Python implements them), `init_code.py` runs
once inside the CUDA program when the first of them is called, and `translate.py` does
the work, so that it can also be tested from ordinary Python.
"""

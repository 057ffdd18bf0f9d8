"""Host ELF files, CUDA fat binaries and their compression (cold path, pure Python).

elf.py: host ELF sections, fatbin wrappers, dynamic dependencies and symbols.
fatbin.py: fat binary containers, their entries, and the choice of PTX to translate.
decompress.py: the zstd frames and raw LZ4 blocks nvcc compresses entries with.
contents.py: what kernels a binary carries, as PTX and as SASS (for `pyshim check`).
"""

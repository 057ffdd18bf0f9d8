"""Errors of the binary readers. Each carries the CUresult the shim should return."""

from __future__ import annotations


class BinaryError(Exception):
    """A file or image pyshim cannot read."""

    cuda_error = "CUDA_ERROR_INVALID_IMAGE"


class ElfError(BinaryError):
    """Not an ELF file, or a malformed one; the message names the file."""


class FatbinError(BinaryError):
    """A malformed fat binary container: the message says what is wrong and where."""


class NoPtxError(FatbinError):
    """The fat binary has kernels only as SASS (machine code for NVIDIA GPUs): there is no
    PTX to translate. The message lists the SASS archs and, where known, the kernels."""

    cuda_error = "CUDA_ERROR_NO_BINARY_FOR_GPU"


class UnsupportedPtxVersion(FatbinError):
    """Every PTX entry has an ISA version newer than the translator supports."""

    cuda_error = "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"

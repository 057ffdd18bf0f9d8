"""Errors of the SASS front end; both map onto the loader's CUDA error codes."""

from __future__ import annotations

from pyshim.ptx.errors import UnsupportedInstruction


class LiftError(UnsupportedInstruction):
    """A kernel's SASS holds something the lifter does not lift (named in the message).
    What the driver says of a kernel with no image for the device: it cannot run here."""

    cuda_error = "CUDA_ERROR_NO_BINARY_FOR_GPU"

    def __init__(self, message: str, kernel: str = "", opcodes: tuple[str, ...] = ()) -> None:
        super().__init__(message, function=kernel)
        self.kernel = kernel
        self.opcodes = opcodes


class NoDisassembler(LiftError):
    """nvdisasm (PyPI nvidia-cuda-nvdisasm) is not installed: SASS cannot be decoded."""

"""The translator's errors. Every one names where: kernel/function, line, column, text.

Each carries `cuda_error`, the CUresult name the shim returns for it.
"""

from __future__ import annotations


class PtxError(Exception):
    """Malformed PTX (or PTX we cannot make sense of)."""

    cuda_error = "CUDA_ERROR_INVALID_PTX"

    def __init__(self, message: str, *, line: int = 0, col: int = 0, text: str = "",
                 function: str = "") -> None:
        self.message = message
        self.line = line
        self.col = col
        self.text = text
        self.function = function
        super().__init__(self._format())

    def _format(self) -> str:
        where = []
        if self.function:
            where.append(f"in {self.function}")
        if self.line:
            where.append(f"line {self.line}:{self.col}")
        loc = (" (" + ", ".join(where) + ")") if where else ""
        near = f": {self.text!r}" if self.text else ""
        return f"{self.message}{loc}{near}"

    def locate(self, *, line: int, col: int, text: str, function: str = "") -> PtxError:
        """Fill in a location once it is known (errors raised deep in emission)."""
        if not self.line:
            self.line, self.col = line, col
        if not self.text:
            self.text = text
        if not self.function:
            self.function = function
        self.args = (self._format(),)
        return self


class UnsupportedInstruction(PtxError):
    """Valid PTX whose (opcode, modifiers, types) combination the translator does not implement.

    CUDA_ERROR_INVALID_PTX rather than NOT_SUPPORTED: it is what the real driver returns for PTX
    its JIT cannot compile, and the runtime maps it to cudaErrorInvalidPtx, which programs
    already handle as "this kernel cannot run here".
    """

    cuda_error = "CUDA_ERROR_INVALID_PTX"

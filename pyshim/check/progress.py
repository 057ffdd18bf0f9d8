"""Progress for big inputs: one line per phase on stderr, only when stderr is a terminal
(pipes and CI logs stay clean)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.started = time.monotonic()

    def __call__(self, message: str) -> None:
        if self.enabled:
            elapsed = time.monotonic() - self.started
            print(f"[{elapsed:6.1f}s] {message}", file=self.stream, flush=True)

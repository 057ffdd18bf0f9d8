"""PTX tokenizer: one C-level regex pass over the whole text, no per-character Python loops.

Comments and `.loc`/`.file` debug directives are removed first (newlines kept, so line numbers
stay right). Tokens are plain strings; the parser classifies them by their first character.
Positions are recomputed only when an error needs one (`position`).
"""

from __future__ import annotations

import bisect
import re

from pyshim.ptx.errors import PtxError

_STRIP = re.compile(
    r"//[^\n]*"                       # line comment
    r"|/\*.*?\*/"                     # block comment (may span lines)
    r"|^[ \t]*\.(?:loc|file)\b[^\n]*",  # debug line info: ignored, line kept
    re.S | re.M,
)
# the comments alone, for text without debug directives: literal-led, so the regex engine
# skips to each '/' instead of trying the anchored alternative at every position (the same
# matches: where _DEBUG finds nothing, that alternative never matches; `.local` is no match)
_STRIP_COMMENTS = re.compile(r"/(?:/[^\n]*|\*.*?\*/)", re.S)
_DEBUG = re.compile(r"\.(?:loc|file)\b")

# `\s*` inside the match: findall would otherwise try every alternative at each blank;
# alternatives in order of frequency (they start with distinct characters, so the order
# does not change what matches)
_TOKEN = re.compile(
    r"\s*+("  # possessive: no alternative starts with white space, so giving some back
    #           can never match (the same tokens, without the engine's retries)
    r"[%$_a-zA-Z.][\w$.]*(?:::[\w$.]+)*"        # identifiers, directives, opcodes.with.mods
    #                                              (modifiers may hold '::': .L2::cache_hint)
    r"|[{}()\[\];,:<>+\-!|@=*]"                  # punctuation
    r'|"(?:[^"\\\n]|\\.)*"'                       # string
    r"|0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}"  # exact float immediates
    r"|[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?"       # decimal float
    r"|0[xX][0-9a-fA-F]+U?|0[bB][01]+U?|[0-9]+U?"  # integers (octal is a leading 0)
    r"|\S)"                                      # anything else: an error for the parser
)


def _blank(match: re.Match[str]) -> str:
    return "\n" * match.group(0).count("\n")


class Source:
    """The PTX text as tokens, with a way back from a token index to line:column."""

    __slots__ = ("text", "tokens", "_starts", "_lines")

    def __init__(self, text: str) -> None:
        if "\x00" in text:
            text = text.split("\x00", 1)[0]  # fatbins pad PTX with NULs
        if _DEBUG.search(text):
            text = _STRIP.sub(_blank, text)
        elif "//" in text or "/*" in text:
            text = _STRIP_COMMENTS.sub(_blank, text)
        self.text = text
        self.tokens: list[str] = _TOKEN.findall(self.text)
        self._starts: list[int] | None = None
        self._lines: list[int] | None = None

    def position(self, index: int) -> tuple[int, int]:
        """(line, column), both 1-based, of token `index` (end of text if past the end)."""
        if self._starts is None:
            self._starts = [m.start(1) for m in _TOKEN.finditer(self.text)]
            self._lines = [m.start() for m in re.finditer("\n", self.text)]
        assert self._lines is not None
        pos = self._starts[index] if index < len(self._starts) else len(self.text)
        line = bisect.bisect_left(self._lines, pos)  # newlines before pos
        line_start = self._lines[line - 1] + 1 if line else 0
        return line + 1, pos - line_start + 1

    def line_text(self, line: int) -> str:
        lines = self.text.split("\n")
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""

    def error(self, cls: type[PtxError], message: str, index: int, function: str = "",
              text: str | None = None) -> PtxError:
        line, col = self.position(index)
        if text is None:
            text = self.line_text(line)
        return cls(message, line=line, col=col, text=text, function=function)

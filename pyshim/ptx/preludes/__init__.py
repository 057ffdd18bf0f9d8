"""Target preludes (C headers pasted at the top of generated source); package data."""

"""IR analyses the targets read (facts about a kernel body, computed from the IR)."""

"""The instruction set: one handler per instruction family and the EMIT table of handlers
and sync kinds (instructions.py), the per-function emission state (emitter.py) and the
target's spelling of barriers and warp collectives (collectives.py)."""

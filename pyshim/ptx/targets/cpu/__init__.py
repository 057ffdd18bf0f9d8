"""The CPU device target: the target (target.py), how a block's threads run (phase.py: the
phase form; regions.py: region loops; warpvec.py: warp vectors) and the per-block
optimisations (guards.py: guard versioning; prefetch.py)."""

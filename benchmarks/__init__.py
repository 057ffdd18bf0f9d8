"""pyshim's performance measurements: every budget of DESIGN.md ("Performance budgets"),
each figure side by side with its baseline measured in the same run.

    python3 -m benchmarks [--json] [--only NAME] [--quick]

Suites (benchmarks.runner.SUITES): api (forwarded call, launch latency and module loads
through the shim's libcuda), module_load (load_module cold vs cached), translator (PTX
lines/s), kernels (CPU device vs plain C loops vs PoCL), blas (benchmarks/blas_*.py).
"""

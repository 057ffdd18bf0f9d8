"""Running a program under the shim: its environment, backend, tracer and report."""

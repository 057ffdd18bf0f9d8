"""C generated from the tables, into the build directory (never into git)."""

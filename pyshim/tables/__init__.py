"""Dispatch tables: fetch vendor headers, parse them, write `tables/`."""

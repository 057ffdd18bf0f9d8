"""Run reports (run.py: the raw call log -> text/JSON) and HTML pages (html.py)."""

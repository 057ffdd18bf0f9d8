"""The cffi and cc builds of every pyshim library; components.py names them all."""

"""The distribution's version, kept in one place."""

__version__ = "0.5.1"

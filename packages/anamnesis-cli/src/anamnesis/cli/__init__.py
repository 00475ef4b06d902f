"""anamnesis.cli: the `anamnesis` command (distribution ``anamnesis-memory``)."""

__version__ = "0.8.5"

"""anamnesis.mcp's public names are declared once: the re-exports of its ``__init__``."""

from anamnesis_testsupport.public_names import check_public_names


def test_public_names_are_the_declared_re_exports() -> None:
    check_public_names("anamnesis.mcp")

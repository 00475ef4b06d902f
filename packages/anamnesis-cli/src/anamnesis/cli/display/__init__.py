"""What a person sees at a terminal: tables fitted to its width, one readable score,
text wrapped with its indent, colour where it is wanted, readable ``--help``.

Only stdout on a terminal is fitted and coloured: piped output stays whole, one line a
row, so ``grep`` and ``cut`` keep working, and ``--json`` never passes through here.
"""

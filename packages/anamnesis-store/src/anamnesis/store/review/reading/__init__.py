"""What one note states, as the contradiction finder reads it: its clauses (:mod:`.text`),
the values they hold (:mod:`.values`, through :mod:`.readers`, :mod:`.settings`,
:mod:`.addresses`, :mod:`.quantities`, :mod:`.commands`; each a :class:`.value.Value`), the
negations and replacements they say (:mod:`.stances`), and all of it read on demand for the
note it is compared with (:mod:`.facts`). Comparing two notes is the room above
(:mod:`anamnesis.store.review.compare`)."""

"""Review: contradiction candidates and the answers a person gives them.

A pair is found mechanically, without a provider: neighbours through the full-text index
and, where vectors run, by meaning (:mod:`.neighbours`); then what each note states
(:mod:`.reading`), read clause by clause (:mod:`.reading.text`) where the two share words
(:mod:`.reading.facts`): its values (:mod:`.reading.values`, each a
:class:`.reading.value.Value`: numbers with their units and versions from
:mod:`.reading.quantities`; ports, paths, flags, commands, names and URLs from
:mod:`.reading.readers`) and what it says not to do or says is gone
(:mod:`.reading.stances`); compared (:mod:`.compare`) into :class:`~.records.Difference`
records. :mod:`.finder` runs it over a store (every pair, or the notes one note just
written contradicts) and lists the notes due for review; :mod:`.resolutions` is what
keep-one, both-are-right and a due note confirmed change.
"""

"""Review: contradiction candidates and the answers a person gives them.

A pair is found mechanically, without a provider: neighbours through the full-text index
(:mod:`.neighbours`), then the values each note states (:mod:`.values`: numbers with
their units, versions, ports, paths, flags, commands, names, URLs; read clause by clause,
:mod:`.text`, only where the two notes share words, :mod:`.facts`) and what each says not
to do or says is gone (:mod:`.stances`), compared (:mod:`.compare`) into
:class:`~.records.Difference` records. :mod:`.finder` runs it over a store (every pair,
or the notes one note just written contradicts) and lists the notes due for review;
:mod:`.resolutions` is what keep-one, both-are-right and a due note confirmed change.
"""

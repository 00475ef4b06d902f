"""The index, derived from the markdown and rebuilt at will.

The database: :mod:`.db` (connection set-up, schema versions, transactions, the rows that
mirror notes) over :mod:`.schema`, :mod:`.file_format`, :mod:`.project_seq` and
:mod:`.stored_text`; :mod:`.connection` (the one connection, its lock, moving a broken
index aside and rebuilding it); :mod:`.note_queries` (the SQL of listing, counting and
stats, and the filters search shares); :mod:`.supersession` (supersede chains).

Files to rows: :mod:`.note_files` (a note file, reading it, its stat), :mod:`.indexer` (one
file or all of them into rows, and rows back as the files say now), :mod:`.broken_files`,
:mod:`.folder_marks` + :mod:`.catch_up` (files changed behind the store's back), and
:mod:`.note_writer` (a file written or removed together with its row).
"""

"""Several remotes: each note routed to one (rules, then pins), a mirror folder per named
remote synced by the one cycle, moves between remotes with tombstones. The public names
are re-exported by ``anamnesis.ops``."""

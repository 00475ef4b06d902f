"""The coding agents the hooks serve: the table of agents (:mod:`.table`) and each agent's
session reader (Claude Code's is ``hooks/transcript.py``, Codex's :mod:`.codex_rollout`);
:mod:`.session_lines` holds what every reader shares: the session file read line by line,
bounded, and what a reader makes of it."""

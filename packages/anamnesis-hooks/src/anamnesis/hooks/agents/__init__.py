"""The agents the hooks serve, each one entry plus its transcript reader (Claude Code's is
``hooks/transcript.py``, Codex's ``codex_rollout.py``); ``session_lines.py`` holds what
every reader shares: the session file read line by line, bounded, and what it yields."""

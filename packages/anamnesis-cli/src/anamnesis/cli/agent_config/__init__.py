"""Other coding agents' configuration files, as `anamnesis init --agent NAME` writes them
and `--uninstall` takes them back (Claude Code's settings are ``hooks_settings.py``'s)."""

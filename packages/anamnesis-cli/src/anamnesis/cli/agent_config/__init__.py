"""What Anamnesis writes into, and reads from, the coding agents' own configuration:
Claude Code's files (where they are: ``claude_paths``), its settings' hooks
(``hooks_settings``), its MCP registration (``mcp_registration``), and the Claude Code
plugin this repository is (``plugin_files``: what it declares; ``plugin_install``: whether
Claude Code has it installed and enabled)."""

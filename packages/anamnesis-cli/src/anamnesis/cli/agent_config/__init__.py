"""What Anamnesis writes into, and reads from, the coding agents' own configuration:
Claude Code's files (where they are: ``claude_paths``), its settings' hooks
(``hooks_settings``), its MCP registration (``mcp_registration``), the Claude Code plugin
this repository is (``plugin_files``: what it declares; ``plugin_install``: whether Claude
Code has it installed and enabled), and other agents' configuration files, as `anamnesis
init --agent NAME` writes them (the hooks from the hooks package's table of agents, the MCP
server) and `--uninstall` takes back."""

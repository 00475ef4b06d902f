"""Other agents' configuration files, as `anamnesis init --agent NAME` writes them (the hooks
from the hooks package's table of agents, the MCP server) and `--uninstall` takes back."""

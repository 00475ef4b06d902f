"""anamnesis.hooks: Claude Code's session lifecycle feeding and reading the memory.

Never imports the MCP SDK. Submodules are imported on use (``from anamnesis.hooks.inject
import ...``) so each hook process loads only what it needs.
"""

__version__ = "0.2.0"

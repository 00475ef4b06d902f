"""The LLM providers reflection can use, behind one protocol (see ``protocol.py``)."""

"""Committed corpora of our own (``namesdates/``) and the programs that generate them."""

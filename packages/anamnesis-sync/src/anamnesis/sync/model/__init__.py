"""What sync promises, with no git in it: the backend protocol and the records it returns
(``backend.py``), the errors a caller must see (``errors.py``), and keep-both's rewrite of
a conflicting note (``fork.py``, which callers also use on their own).

The lowest floor: every other room builds on it, and it imports none of them.
"""

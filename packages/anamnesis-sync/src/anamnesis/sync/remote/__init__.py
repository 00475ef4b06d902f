"""The other side: clients with bounded waits (``connect.py``), fetching and pushing one
branch (``transport.py``), remote URLs shown without secrets and failures in plain words
(``urls.py``), an unborn HEAD pointed at our branch (``remote_head.py``), and packs
rolled up here and in a remote on this file system (``housekeeping.py``).

Beside the tree (neither imports the other), over the objects and the model.
"""

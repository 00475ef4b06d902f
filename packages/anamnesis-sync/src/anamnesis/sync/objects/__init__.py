"""Git's object store, read and written without a working tree: refs, commits and blobs
(``repository.py``), trees read and patched (``tree_reader.py``, ``raw_tree.py``,
``tree_patch.py``), commits compared, replayed and merged (``integrate.py``, with
``partial.py``'s trailer for a pull that took part of what came in), packs written,
read and copied (``pack_writer.py``, ``packed_reader.py``, ``pack_copy.py``,
``object_copy.py``), what the other side lacks (``new_objects.py``), and the history
read for other packages (``history.py``).

Below the tree and the remote, above the model: nothing here touches the notes folder's
files or the network.
"""

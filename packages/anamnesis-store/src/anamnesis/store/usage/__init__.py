"""What this machine's sessions used (:mod:`.usage_log`): the notes shown, recalled,
searched and fetched, in a file of its own beside the note trees, never synced."""

"""What a page shows, computed from the store, sync and ops: listings, the fleet, the
status, a note's source and history, conflict copies, the edit form's fields."""

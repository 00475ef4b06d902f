"""Text made into HTML: markdown without inline styles, search snippets, diffs."""

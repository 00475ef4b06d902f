"""The pages: one module per group of routes, each a handler that reads the request, asks
the store (through :mod:`..views`) and renders a template (:mod:`.responses`)."""

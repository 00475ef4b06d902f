"""The `anamnesis` subcommands, one module per group; `app` registers them."""

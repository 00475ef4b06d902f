"""Doctor's checks of a home: what can be known from the home, its store and its sync
repository alone (:func:`~.table.home_checks`). The CLI's ``anamnesis doctor`` runs these
among its own checks of the installation (config, hooks, MCP, vectors); a dashboard
started on its own shows these."""

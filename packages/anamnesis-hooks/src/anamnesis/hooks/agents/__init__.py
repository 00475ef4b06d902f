"""The coding agents the hooks serve: the table of agents (:mod:`.table`) and each agent's
session reader."""

"""Everyday facts as a user writes them down, in two notes that disagree, and the
look-alikes beside them (issue 42: short probes of the kind every project's memory
holds, written for this file, not taken from the measured set):

* a word whose stem is not the start of it ("retries": ``retry``) is a word the other
  note says: "the sender retries five times" and ``max_retries: 3`` are one count;
* a route of one part is a path ("the load balancer checks /health", then
  ``/healthz``); it is no rival of a source file's path (``/login`` beside
  ``src/auth/session_check.py``);
* "replaced X with Y" and "swapped X for Y" retire X, not "X with Y".
"""

from __future__ import annotations

from pair_checks import Note, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "a count said in prose with a word whose stem it does not start with",
        ("Retries for the webhook sender", "The sender retries five times before giving up."),
        ("Webhook retries", "Config: `max_retries: 3`."),
        "number",
    ),
    (
        "a route of one part, changed",
        ("Health check path", "The load balancer checks /health."),
        ("ALB health check", "Health check path is /healthz."),
        "path",
    ),
    (
        "a thing replaced with another",
        ("Job queue library", "Background jobs use Celery."),
        ("Background jobs", "We replaced Celery with RQ."),
        "replacement",
    ),
    (
        "a thing swapped for another",
        ("Job queue library", "Background jobs use Celery."),
        ("Background jobs", "We swapped Celery for RQ last sprint."),
        "replacement",
    ),
]  # fmt: skip

# (rule, older, newer)
LEFT: list[tuple[str, Note, Note]] = [
    (
        "a route beside a source file",
        ("Auth middleware redirect", "The auth middleware redirects to /login when the"
         " session cookie is missing."),
        ("Auth middleware checks", "To reproduce the missing-cookie redirect, run the"
         " auth middleware against src/auth/session_check.py."),
    ),
    (
        "a route of one part beside another service's",
        ("Health check path", "The load balancer checks /health."),
        ("Readiness probe", "Kubernetes readiness hits /ready."),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)

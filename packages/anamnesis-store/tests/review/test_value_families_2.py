"""Values of one thing the contradiction finder must find in more wordings (issue 42's
tuning splits, round 2 of session 55), each beside a look-alike it must leave alone:

* an address's explicit port is read whatever its scheme (``amqp://queue.lan:5672``,
  ``redis://cache:6379``), not only the web's;
* each note's only address of a thing the titles share is that thing's, whatever names
  are said after it (what it is reached with: "port 6380, with the password from Vault"),
  while a name said before it still tells two things apart ("the Grafana UI is on port
  3001" against "the Kibana UI ... 5601");
* an address given to a command, no words said just before it, is the address of what
  the command's words name: ``harbor login registry.orchard.net`` is Harbor's, the
  address another note gives as ``https://harbor.orchard.net`` (a command naming another
  tool gives another tool's address);
* a schedule's step as cron writes it (``*/30`` in the minute field, said after the
  field's name in prose or as its key in code) is a number of that field: ``*/30`` and
  ``*/10`` minutes differ, a step of the hour field is another setting;
* a setting whose value is a list of flags (``args: [--preload, --workers=4]``) gives
  its program those flags: a list without one of them drops it, the same flags in
  another order or quoted are the same list;
* a module a module system loads (``module load cuda/12``, "the module `cuda/11`") is
  that tool at its version, though the version has no dot (elsewhere ``api/v1`` is a
  path);
* a setting's key of generic words alone (``max: 4``, ``size=20``) counts what the words
  around it count: a count of things said with its noun ("6 seats", "50 hits"), not a
  count of events ("retried 3 times").

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from pair_checks import Note, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "one broker's port, the older in an amqp address, names said after each",
        ("RabbitMQ broker address", "Workers connect to `amqp://queue.orchard.lan:5672`"
         " with credentials from Vault; plain TCP on the office network."),
        ("RabbitMQ settings for the workers", "- host: queue.orchard.lan\n"
         "- port: 5671, TLS with the cluster's CA bundle\n- heartbeat 30 s"),
        "port",
    ),
    (
        "a name said after the port, its letters inside a word before it",
        ("RabbitMQ broker address", "Workers on the Hetzner box connect to"
         " `amqp://queue.orchard.lan:5672`; plain TCP on the office network."),
        ("RabbitMQ settings for the workers", "- host: queue.orchard.lan\n"
         "- local port: 5671, TLS with the CA bundle from Vault"),
        "port",
    ),
    (
        "one service's address, the newer given to its command",
        ("Container registry UI", "https://harbor.orchard.net, sign in through Okta."),
        ("Pushing images from a laptop", "`harbor login https://registry.orchard.net --oidc`, then"
         " `docker push` as usual."),
        "url",
    ),
    (
        "a cron step said after its field's name, then as the field's key in code",
        ("Cache purge schedule", "The purge job is registered in jobs/schedule.yml with"
         " minute `*/30`, so stale entries last half an hour at most."),
        ("jobs/schedule.yml purge entry", "```yaml\npurge:\n  task: cache.purge\n"
         "  minute: \"*/10\"\n```"),
        "number",
    ),
    (
        "a list of flags, one dropped",
        ("Web container arguments", "In the Helm values the web container starts with"
         " `args: [--preload, --workers=4]` so workers share the app's memory."),
        ("Helm values: web container", "```yaml\nweb:\n  args: [--workers=4]\n```\n"
         "Each worker loads the app itself."),
        "flag",
    ),
    (
        "a module loaded at a version without a dot",
        ("GPU toolkit on the cluster", "Jobs use the module `cuda/11` from the site stack."),
        ("Job script header", "```sh\n#SBATCH --gres=gpu:1\nmodule load cuda/12\n```\n"
         "The kernels need the newer toolkit."),
        "version",
    ),
    (
        "a key of generic words in a config block, a count of things in prose",
        ("Seat limit for free teams", "```yaml\nseats:\n  max: 4\n  trial-max: 10\n```"),
        ("How many seats a team gets", "Free teams can fill 6 seats; trial teams 10."),
        "number",
    ),
    (
        "a key of generic words in code, a count of things in prose",
        ("Search results per query", "The search client sends `size=20` with each query."),
        ("Search result count", "Each search query now returns 50 hits."),
        "number",
    ),
    (
        "the older value the newer note says fails",
        ("Chart requirements", "Chart.yaml:\n```yaml\nkubeVersion: 1.25\nappVersion: 2.3\n```"),
        ("Cluster floor for the chart", "The chart says `kubeVersion: 1.27`; an install on"
         " 1.25 fails on the missing API."),
        "version",
    ),
]  # fmt: skip

LEFT: list[tuple[str, Note, Note]] = [
    (
        "two dashboards' addresses, each named before its port",
        ("Dashboards on the ops host", "The Grafana UI: https://ops.fernhill.lan:3000"
         " (log in with SSO)."),
        ("Logs dashboards", "The Kibana UI is on port 5601: https://logs.fernhill.lan:5601,"
         " with the `viewer` role."),
    ),
    (
        "an address given to a command naming another tool",
        ("Container registry UI", "https://harbor.orchard.net, sign in through Okta."),
        ("Deploying from a laptop", "`argocd login deploy.orchard.net --oidc`, then"
         " `argocd app sync shop`."),
    ),
    (
        "a preview's address said after words, holding the site's name further on",
        ("Canonical site address", "`site: 'https://fernway.garden'` in astro.config.mjs;"
         " the sitemap uses it."),
        ("Branch previews", "Pages previews live at https://pr-<n>--fernway.pages.dev and"
         " set SITE_URL to that address."),
    ),
    (
        "one list of flags, reordered and quoted",
        ("Web container arguments", "In the Helm values the web container starts with"
         " `args: [--preload, --workers=4]` so workers share the app's memory."),
        ("Helm values: web container", "```yaml\nweb:\n  args: [\"--workers=4\", \"--preload\"]"
         "\n```\nWorkers share the app's memory."),
    ),
    (
        "an API's path with a version, no module",
        ("Orders API", "Clients call the `orders/v1` routes of the gateway."),
        ("Orders API routes", "The gateway serves `orders/v1` and the `orders/v2` preview."),
    ),
    (
        "a key of generic words beside a count of retries",
        ("Upload limits", "```yaml\nuploads:\n  max: 20\n```"),
        ("Upload retries", "A failed upload is retried 3 times before the client gives up."),
    ),
    (
        "steps of two fields of one schedule",
        ("Cache purge schedule", "The purge job is registered in jobs/schedule.yml with"
         " minute `*/30`, so stale entries last half an hour at most."),
        ("jobs/schedule.yml report entry", "```yaml\nreport:\n  task: cache.report\n"
         "  hour: \"*/6\"\n```"),
    ),
    (
        "the older value the newer note says holds, beside a failing other one",
        ("Chart requirements", "Chart.yaml:\n```yaml\nkubeVersion: 1.25\nappVersion: 2.3\n```"),
        ("Cluster floor for the chart", "The chart says `kubeVersion: 1.25`; an install on"
         " 1.24 fails on the missing API."),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)

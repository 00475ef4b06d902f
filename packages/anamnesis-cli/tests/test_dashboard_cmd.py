"""`anamnesis dashboard`: runs the dashboard (the `dashboard` extra) in the CLI's own
process, its status panel showing the CLI's whole doctor, or says how to install it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import httpx
from anamnesis_testsupport.dashboard_server import checks_shown

from cli_testing import Env, anamnesis_script

NO_DASHBOARD = """
import importlib.abc, sys

class NoDashboard(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.startswith("anamnesis.dashboard"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoDashboard())
"""


def test_dashboard_prints_one_link_and_serves_the_store(env: Env) -> None:
    assert env.run("write", "--title", "Seen in the page", "hello").code == 0
    doctor = [check["name"] for check in env.run("doctor", "--offline", "--json").json()["checks"]]
    process = subprocess.Popen(
        [*anamnesis_script(), "dashboard", "--no-open", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env.environment(),
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/)\?token=\S+", line)
        assert found, line
        with httpx.Client(base_url=found.group(1), timeout=30) as client:
            page = client.get(found.group(0), follow_redirects=True)
            assert page.status_code == 200 and "Seen in the page" in page.text
            panel = client.get("/status", params={"panel": "1"})
        # The CLI handed the dashboard its doctor: every check, in doctor's order, the
        # installation's own (install, config, hooks, captures, MCP, vectors) included.
        shown = checks_shown(panel.text)
        assert list(shown) == doctor
        assert {"install", "config", "hooks", "mcp", "vectors", "store", "sync"} <= set(shown)
    finally:
        process.terminate()
        process.wait(10)


def test_without_the_extra_it_says_how_to_install(env: Env, tmp_path: Path) -> None:
    site = tmp_path / "no-dashboard"
    site.mkdir()
    (site / "sitecustomize.py").write_text(NO_DASHBOARD)
    env.variables["PYTHONPATH"] = str(site)
    assert env.run("init", "--local-only").code == 0
    done = env.run_process("dashboard", "--no-open")
    assert done.code == 1
    assert done.err_lines[0].startswith(
        "anamnesis dashboard: the dashboard is not installed; install it with: "
    )
    assert "'anamnesis-memory[dashboard]'" not in done.err  # never the index's old release
    assert "from a checkout or its wheels" in done.err


def test_no_store_is_a_clear_error(bare: Env) -> None:
    done = bare.run_process("dashboard", "--no-open", "--port", "0")
    assert done.code == 1
    assert "run `anamnesis init` first" in done.err

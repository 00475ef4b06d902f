"""What a new user does after installing the tool from wheels (the `install` session): init
(printed plan first, then local-only), write, search, the inject hook, and doctor's update
advice for a wheel install; then, with the `mcp` and `dashboard` extras, the server's five
tools over stdio and the dashboard serving the tour's note behind its link, or, without them
(`--without-mcp`), no MCP SDK in the tool's venv and `serve` and `dashboard` failing with
the hint to install `anamnesis-memory[mcp]` / `[dashboard]`.

Usage: python user_tour.py TOOL ROOT [--without-mcp]: TOOL is the installed `anamnesis`,
ROOT an empty folder for the store, Claude Code's folder and HOME. Runs with the Python
that runs nox (the MCP client comes from the dev dependencies), never inside the tool's venv.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

tool, root = sys.argv[1], pathlib.Path(sys.argv[2])
with_mcp = "--without-mcp" not in sys.argv[3:]
env = {k: v for k, v in os.environ.items() if not k.startswith(("ANAMNESIS_", "CLAUDE_"))}
env.update(
    ANAMNESIS_HOME=str(root / "home"),
    CLAUDE_CONFIG_DIR=str(root / "claude"),
    ANAMNESIS_MACHINE_ID="tour",
    HOME=str(root),
)


def run(*args: str, stdin: str = "", ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([tool, *args], input=stdin, capture_output=True, text=True, env=env)
    if ok:
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def tour_with_mcp() -> None:
    import anyio
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    async def tools() -> list[str]:
        params = StdioServerParameters(command=tool, args=[], env=env)
        async with Client(params, mode="legacy") as client:
            return sorted(t.name for t in (await client.list_tools()).tools)

    assert len(anyio.run(tools)) == 5
    tour_dashboard()
    print("tour with [mcp,dashboard] ok")


def tour_dashboard() -> None:
    import re
    import urllib.request

    server = subprocess.Popen([tool, "dashboard", "--no-open", "--port", "0"], env=env,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert server.stdout is not None
        link = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", server.stdout.readline())
        assert link, "the dashboard printed no link"
        # As a browser: keep the cookie the link sets, then follow its redirect.
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with browser.open(link.group(0), timeout=30) as page:
            assert "Tour note" in page.read().decode()
    finally:
        server.terminate()
        server.wait(10)


def tour_without_mcp() -> None:
    venv_python = pathlib.Path(tool).resolve().parent / "python"
    probe = subprocess.run([str(venv_python), "-c", "import mcp"], capture_output=True)
    assert probe.returncode != 0, "the MCP SDK is installed without the [mcp] extra"
    served = run("serve", ok=False)
    assert served.returncode == 1 and "anamnesis-memory[mcp]" in served.stderr, served.stderr
    page = run("dashboard", "--no-open", ok=False)
    assert page.returncode == 1 and "anamnesis-memory[dashboard]" in page.stderr, page.stderr
    print("tour without [mcp] and [dashboard] ok")


print(run("--version").stdout.strip())
plan = run("init", "--print").stdout
assert "inject --format json" in plan and not (root / "home").exists(), plan
run("init", "--yes", "--local-only")
run("write", "--title", "Tour note", "--project", "global", "-", stdin="Use uv for everything")
assert json.loads(run("search", "uv", "--json").stdout)[0]["title"] == "Tour note"
out = run("inject", stdin=json.dumps({"cwd": str(root)})).stdout
assert "Tour note" in out, out
doctor = json.loads(run("doctor", "--offline", "--json", ok=False).stdout)
install = {c["name"]: c for c in doctor["checks"]}["install"]
assert "from wheels in" in install["detail"] and "--find-links" in install["fix"], install
if with_mcp:
    tour_with_mcp()
else:
    tour_without_mcp()

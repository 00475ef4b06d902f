"""Fix hints name how this copy was installed: read from PEP 610's direct_url.json of
real dist-info folders, one per way of installing."""

from __future__ import annotations

import json
import sys
from importlib import metadata
from pathlib import Path

import pytest

from anamnesis.cli import installation
from anamnesis.cli.capable_python import can_load_extensions, find_capable_python
from anamnesis.cli.doctor_vectors import vectors_fix


def dist_info(tmp_path: Path, direct_url: dict[str, object] | None) -> metadata.Distribution:
    folder = tmp_path / "anamnesis_memory-0.2.0.dist-info"
    folder.mkdir()
    (folder / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: anamnesis-memory\nVersion: 0.2.0\n"
    )
    if direct_url is not None:
        (folder / "direct_url.json").write_text(json.dumps(direct_url))
    return metadata.PathDistribution(folder)


def copy(source: str, location: Path | None, *, uv_tool: bool = True) -> installation.Installation:
    return installation.Installation(
        source=source,
        location=location,
        uv_tool=uv_tool,
        python="/usr/bin/python3.11",
        extras=("mcp",),
        version="0.2.0",
    )


@pytest.mark.parametrize(
    ("direct_url", "source", "location"),
    [
        ({"url": "file:///src/anamnesis/packages/anamnesis-cli", "dir_info": {}}, "checkout",
         "/src/anamnesis/packages/anamnesis-cli"),
        ({"url": "file:///src/a%20b/packages/anamnesis-cli", "dir_info": {"editable": True}},
         "editable", "/src/a b/packages/anamnesis-cli"),
        ({"url": "file:///tmp/dist/anamnesis_memory-0.2.0-py3-none-any.whl",
          "archive_info": {"hash": "sha256=00"}}, "wheel", "/tmp/dist"),
        ({"url": "https://example.invalid/x.whl", "archive_info": {}}, "index", None),
        (None, "index", None),
    ],
)  # fmt: skip
def test_the_source_is_read_from_direct_url_json(
    tmp_path: Path, direct_url: dict[str, object] | None, source: str, location: str | None
) -> None:
    found = installation._source(dist_info(tmp_path, direct_url))
    assert found == (source, Path(location) if location else None)


def test_a_checkout_install_is_reinstalled_from_its_folder_never_by_name(tmp_path: Path) -> None:
    cli = tmp_path / "repo" / "packages" / "anamnesis-cli"
    cli.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    inst = copy("checkout", cli)
    command = installation.install_command(inst, extras=("mcp", "vectors"))
    assert command == (
        f"uv tool install --reinstall --python /usr/bin/python3.11 '{cli}[mcp,vectors]'"
    )
    assert installation.update_command(inst) == (
        f"git -C {tmp_path / 'repo'} pull && uv tool install --reinstall "
        f"--python /usr/bin/python3.11 '{cli}[mcp]'"
    )
    other = installation.install_command(inst, python="/opt/py/bin/python3")
    assert "--python /opt/py/bin/python3" in other


def test_a_uv_tool_receipt_names_the_wheel_folder_find_links_used() -> None:
    receipt: dict[str, object] = {"options": {"find-links": ["file:///tmp/my%20wheels"]}}
    assert installation._receipt_source(receipt) == ("wheel", Path("/tmp/my wheels"))
    assert installation._receipt_source({"requirements": []}) == ("index", None)


def test_a_wheel_install_keeps_to_its_wheels_and_version() -> None:
    inst = copy("wheel", Path("/tmp/dist"))
    command = installation.install_command(inst)
    assert command == (
        "uv tool install --reinstall --python /usr/bin/python3.11 --find-links /tmp/dist "
        "'anamnesis-memory[mcp]>=0.2.0'"  # >=: the index's 0.1.3 can never satisfy it
    )
    assert installation.update_command(inst).endswith(command)


def test_an_index_install_and_a_pip_install_are_updated_their_own_way() -> None:
    inst = copy("index", None)
    assert installation.install_command(inst) == (  # never below this version: not 0.1.3
        "uv tool install --reinstall --python /usr/bin/python3.11 'anamnesis-memory[mcp]>=0.2.0'"
    )
    assert installation.update_command(inst) == "uv tool upgrade anamnesis-memory"
    pip = copy("checkout", Path("/src/packages/anamnesis-cli"), uv_tool=False)
    assert installation.install_command(pip).startswith(f"{sys.executable} -m pip install")


def test_the_workspace_environment_is_updated_with_uv_sync() -> None:
    inst = installation.detect()  # these tests run in the workspace's environment
    assert inst.source == "editable"
    assert inst.checkout is not None and (inst.checkout / "pyproject.toml").is_file()
    assert installation.install_command(inst).endswith("&& uv sync")


def test_the_vectors_fix_names_a_python_that_can_load_extensions() -> None:
    fix = vectors_fix("this Python's sqlite3 cannot load extensions, so ...", "store fix")
    found = find_capable_python()
    if found is None:
        assert fix.startswith("no Python on this machine can load SQLite extensions")
    else:
        assert can_load_extensions(found) and f"reinstall on {found}" in fix
    assert "anamnesis-memory[" not in fix or "--find-links" in fix
    assert vectors_fix("the model cannot load", "store fix") == "store fix"

"""The table of which module registers which top-level command (app.COMMAND_MODULES) is
what the modules register; a command line that names a command loads its module alone,
and gets the same command as the whole app's."""

from __future__ import annotations

import json
import subprocess
import sys

import typer
import typer.main

from anamnesis.cli.app import COMMAND_MODULES, build_app


def _names(app: typer.Typer) -> list[str]:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    return list(group.commands)


def test_the_table_lists_every_command_once() -> None:
    listed = [command for _module, commands, _how in COMMAND_MODULES for command in commands]
    assert sorted(_names(build_app())) == sorted(listed)
    assert len(set(listed)) == len(listed)  # each command in one module


def test_a_named_command_gets_its_module_alone_and_the_same_command() -> None:
    whole = typer.main.get_command(build_app())
    assert isinstance(whole, typer.core.TyperGroup)
    for _module, commands, _how in COMMAND_MODULES:
        for command in commands:
            alone = typer.main.get_command(build_app([command, "--help"]))
            assert isinstance(alone, typer.core.TyperGroup)
            assert sorted(alone.commands) == sorted(commands), command
            ours, theirs = alone.commands[command], whole.commands[command]
            assert [p.name for p in ours.params] == [p.name for p in theirs.params], command
    # a word that names no command: every command, for the parser to say so
    assert _names(build_app(["revew"])) == _names(build_app())


def test_anamnesis_review_imports_no_other_commands_module() -> None:
    code = (
        "import json, sys\n"
        "from anamnesis.cli.app import build_app\n"
        "build_app(['review'])\n"
        "print(json.dumps([m for m in sys.modules if m.startswith('anamnesis.cli.commands.')]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(done.stdout)
    assert "anamnesis.cli.commands.review" in loaded
    assert "anamnesis.cli.commands.admin" not in loaded
    assert "anamnesis.cli.commands.remotes" not in loaded
    # the LLM's settings load only with --confirm: a plain review asks no model
    assert "anamnesis.cli.commands.reflecting" not in loaded

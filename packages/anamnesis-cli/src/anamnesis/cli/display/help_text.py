"""`--help` that reads whole: command descriptions not cut with "...", and value names a
person reads (``--tag TAG``, ``--max-calls N``) rather than typer's type labels
(``<list[str]>``, ``<int range>``).

A group lists each command with its short help, which click makes by cutting the help's
first line to fit, ending in "..."; each command is given the first sentence of its help
as its short help instead, which click shows whole (wrapped). typer labels an option's
value with its type unless it has a metavar: each option without one gets one here
(numbers ``N``, paths ``PATH``, anything else its own name in capitals; a metavar given
where the option is declared wins). An argument gets its name in capitals, and the type
label typer writes after it in the "Arguments" list is taken out of the page.
"""

from __future__ import annotations

import re
from typing import Any, get_args

import typer
from typer.core import TyperArgument, TyperOption

# An argument's line in the "Arguments" list: its name, then typer's type label.
_ARGUMENT = re.compile(r"^(  \S+)( <[^<>]*>)(?=\s|$)")
# Where a sentence ends: a full stop (after a closing bracket too) before a capital.
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)`][.!?])\s+(?=[A-Z`])")


def make_readable(command: Any) -> None:
    """Give ``command`` (typer's click command for the app) and every command under it
    the help above, in place."""
    for sub in (getattr(command, "commands", None) or {}).values():
        make_readable(sub)
    if command.help and not command.short_help:
        command.short_help = first_sentence(command.help)
    for param in command.params:
        if param.metavar is not None:
            continue
        if isinstance(param, TyperArgument):
            param.metavar = (param.name or "value").upper()
        elif isinstance(param, TyperOption) and not param.is_flag:
            param.metavar = _value_name(param)
    command.context_class = ReadableContext


def first_sentence(text: str) -> str:
    """The first sentence of a help text, on one line (the whole first paragraph when it
    has only one)."""
    paragraph = " ".join(text.strip().split("\n\n", 1)[0].split())
    return _SENTENCE_END.split(paragraph, 1)[0]


def _value_name(option: TyperOption) -> str:
    described = option.type_descriptor
    value = described.annotation
    if described.is_list:
        value = get_args(value)[0] if get_args(value) else str
    if value in (int, float):
        return "N"
    if described.is_path:
        return "PATH"
    return max(option.opts, key=len).lstrip("-").replace("-", "_").upper()


class ReadableContext(typer.Context):
    """The context every command runs in: its help page without the arguments' types."""

    def get_help(self) -> str:
        return without_argument_types(super().get_help())


def without_argument_types(page: str) -> str:
    """``page`` with the type label after each name in its "Arguments" list taken out,
    the descriptions moved left by as much as every name allows (so they stay in one
    column, their wrapped lines with them)."""
    lines = page.split("\n")
    section: list[int] = []  # the numbers of the lines under "Arguments:"
    heading = ""
    for number, line in enumerate(lines):
        if line and not line.startswith(" "):
            heading = line
        elif heading == "Arguments:":
            section.append(number)
    found = {n: m for n in section if (m := _ARGUMENT.match(lines[n]))}
    if not found:
        return page
    shift = min(len(m.group(2)) for m in found.values())
    for n in section:
        name = found.get(n)
        if name is not None:
            pad = " " * (len(name.group(2)) - shift)
            lines[n] = name.group(1) + pad + lines[n][name.end() :]
        elif lines[n].startswith(" " * (shift + 2)):  # a description's wrapped line
            lines[n] = lines[n][shift:]
    return "\n".join(lines)

"""Command-line flags for the hook entry points, without argparse.

The hooks run as fresh processes at every session start and end; argparse (with gettext
and its friends) costs several milliseconds of a 60 ms budget, and the hooks take only a
handful of ``--name value`` options.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence


class FlagError(ValueError):
    """The command line does not fit the hook's options."""


def parse_flags(
    argv: Sequence[str],
    *,
    values: Mapping[str, Collection[str] | None],
    switches: Sequence[str],
) -> dict[str, str | bool]:
    """Parse ``--name value``, ``--name=value`` and ``--switch``.

    ``values`` maps each option taking a value to its allowed choices (None: any value; a
    live view, such as a dict's keys, is read when the flag is checked).
    Switches are False unless given. Raises :class:`FlagError` with a usable message.
    """
    out: dict[str, str | bool] = dict.fromkeys(switches, False)
    index = 0
    while index < len(argv):
        token = argv[index]
        if not token.startswith("--"):
            raise FlagError(f"unexpected argument {token!r}; options: {_known(values, switches)}")
        name, has_value, inline = token[2:].partition("=")
        if name in switches and not has_value:
            out[name] = True
        elif name in values:
            if has_value:
                value = inline
            elif index + 1 < len(argv):
                index += 1
                value = argv[index]
            else:
                raise FlagError(f"--{name} needs a value")
            choices = values[name]
            if choices is not None and value not in choices:
                raise FlagError(f"--{name} must be one of {', '.join(choices)}, got {value!r}")
            out[name] = value
        else:
            raise FlagError(f"unknown option --{name}; options: {_known(values, switches)}")
        index += 1
    return out


def _known(values: Mapping[str, object], switches: Sequence[str]) -> str:
    return " ".join(f"--{name}" for name in [*values, *switches])

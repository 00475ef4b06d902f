"""Doctor's words about the named remotes, folded into its ``remote`` and ``sync`` checks
(one line each, as with one remote): each named remote answers or not, each mirror's
state, and a ``remotes`` entry of config.json that cannot be used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anamnesis.ops.checks.verdict import FAIL, OK, WARN, Check
from anamnesis.ops.remotes.config import config_problems, remote_specs
from anamnesis.ops.remotes.state import remotes_state
from anamnesis.sync import check_remote, redact_url

if TYPE_CHECKING:
    from anamnesis.ops.home import Home
    from anamnesis.ops.remotes.config import RemoteSpec

_RANK = {OK: 0, WARN: 1, FAIL: 2}


def with_named_remotes(home: Home, check: Check, *, online: bool, timeout_s: float) -> Check:
    """``check`` (the default remote's) with each named remote's reachability added."""
    config = home.config()
    specs = remote_specs(config)
    if not specs and not config_problems(config):
        return check
    findings = [(check.status, f"default: {check.detail}", check.fix)]
    for problem in config_problems(config):
        findings.append((WARN, f"config.json: {problem}", "fix the entry in config.json"))
    for spec in specs:
        where = redact_url(spec.url)
        if not online:
            findings.append((OK, f"{spec.name}: {where} (not contacted)", ""))
            continue
        unreachable = check_remote(spec.url, timeout_s=timeout_s)
        if unreachable:
            fix = f"check the URL and the network (`anamnesis remote remove {spec.name}`)"
            findings.append((FAIL, f"{spec.name}: {unreachable}", fix))
        else:
            findings.append((OK, f"{spec.name}: {where} answers", ""))
    return _merged(check.name, findings)


def with_named_mirrors(home: Home, check: Check) -> Check:
    """``check`` (memory/.git's sync state) with each named remote's mirror state added."""
    states = [state for state in remotes_state(home) if state.spec is not None]
    if not states:
        return check
    findings = [(check.status, f"default: {check.detail}", check.fix)]
    for state in states:
        sync = state.sync
        if sync is None:
            detail = state.problem or "never synced here"
            status = WARN if state.problem else OK
            findings.append((status, f"{state.name}: {detail}", "run `anamnesis sync`"))
        elif sync.conflicts:
            findings.append(
                (FAIL, f"{state.name}: unresolved conflicts: {', '.join(sync.conflicts)}",
                 "`anamnesis sync --resolve keep-both` (or ours / theirs)")
            )  # fmt: skip
        elif sync.ahead:
            findings.append((WARN, f"{state.name}: {sync.detail}", "run `anamnesis sync`"))
        else:
            findings.append((OK, f"{state.name}: {sync.detail}", ""))
        if state.spec is not None and state.spec.encrypt:
            findings.append(_sealing(home, state.spec))
    return _merged(check.name, findings)


def _sealing(home: Home, spec: RemoteSpec) -> tuple[str, str, str]:
    """Whether this machine can read the encrypted remote ``spec`` (its key, and the
    recipients its mirror last had); pyrage is loaded only for an encrypted remote."""
    from anamnesis.ops.remotes.codec import CodecError
    from anamnesis.ops.remotes.sealed import membership
    from anamnesis.ops.remotes.sealing.sealed_codec import add_recipient_command

    try:
        state = membership(home, spec, create=False)
    except CodecError as exc:
        return WARN, f"{spec.name}: {exc}", "`anamnesis remote key`"
    if state.recipients is None:
        return OK, f"{spec.name}: encrypted, recipients not fetched yet", ""
    if not state.member:
        command = add_recipient_command(spec.name, state.public_key)
        return (
            WARN,
            f"{spec.name}: encrypted, and this machine's key is not one of its recipients",
            f"on a member's machine: `{command}`",
        )
    return OK, f"{spec.name}: encrypted to {len(state.recipients)} key(s), this one among them", ""


def _merged(name: str, findings: list[tuple[str, str, str]]) -> Check:
    worst = max(findings, key=lambda finding: _RANK[finding[0]])[0]
    fixes = [fix for status, _detail, fix in findings if fix and status == worst]
    return Check(name, worst, "; ".join(d for _s, d, _f in findings), fixes[0] if fixes else "")

#!/bin/sh
# Anamnesis' Claude Code plugin runs everything through this script: each hook of
# hooks/hooks.json and the MCP server of .claude-plugin/plugin.json (both written by
# scripts/plugin_files.py from the CLI's tables) is `sh plugin/anamnesis.sh ARGS...`, which
# runs `anamnesis ARGS...`.
#
# Which `anamnesis`: this checkout's, never the package index's older `anamnesis-memory`
# (0.1.3, another design under the same name). The one on PATH, else the one `uv tool
# install` put in `uv tool dir --bin`, when its `--version` is at least this copy's
# (packages/anamnesis-cli/pyproject.toml); one of ours that is older (>= 0.5) still runs
# while this copy is installed over it in the background. Versions are remembered per
# executable (<home>/cache/claude-plugin/versions) until the executable changes, so a hook
# pays for `anamnesis --version` once, not on every prompt.
#
# None at all: it is installed from this copy of the checkout the way scripts/install.py
# does it (that script, run by any Python uv finds), in the background: a SessionStart hook
# has 15 s, an install takes longer. The session start says so, once, in one line (and
# what to run by hand when it cannot be done); the other hooks say nothing. Hooks fail
# open: every hook exits 0, whatever happened. The install's log is
# <home>/logs/plugin-install.log (<home>: ANAMNESIS_HOME, else ~/.anamnesis).
#
# POSIX sh and the tools every Unix has: a machine may have uv and no python3 on PATH.
#
#   sh plugin/anamnesis.sh inject --format json   # a hook, as hooks/hooks.json runs it
#   sh plugin/anamnesis.sh serve                  # the MCP server
#   sh plugin/anamnesis.sh --which                # which `anamnesis` the hooks would run

set -u

FLOOR=0.5.0  # the first version of this design: below it is the index's older package

if [ -z "${HOME:-}" ]; then  # no home, no store to find: a hook still exits 0
    echo "anamnesis: HOME is not set" >&2
    [ "${1:-}" = serve ] && exit 1
    exit 0
fi

case $0 in
    */*) here=${0%/*} ;;
    *) here=. ;;
esac
root=$(cd "$here/.." && pwd -P) || exit 0
pyproject=$root/packages/anamnesis-cli/pyproject.toml

home=${ANAMNESIS_HOME:-}
case $home in
    '') home=$HOME/.anamnesis ;;
    '~') home=$HOME ;;
    '~/'*) home=$HOME/${home#'~/'} ;;
esac
logs=$home/logs
log=$logs/plugin-install.log
state=$home/cache/claude-plugin
memo=$state/versions

# -- small helpers -------------------------------------------------------------------------

# shq WORD: WORD quoted for a shell when it needs to be (for a command a message prints).
shq() {
    case $1 in
        *[!A-Za-z0-9_./:=@%+,-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
        *) printf '%s' "$1" ;;
    esac
}

# json_string TEXT: TEXT as a JSON string.
json_string() {
    rest=$1
    out=
    while [ -n "$rest" ]; do
        char=${rest%"${rest#?}"}
        rest=${rest#?}
        case $char in
            '"') out="$out\\\"" ;;
            '\') out="$out\\\\" ;;
            *) out="$out$char" ;;
        esac
    done
    printf '"%s"' "$out"
}

# at_least A B: whether version A >= version B, by their first three numbers (a part's
# leading digits: 0.6.0rc1 is 0.6.0).
at_least() {
    left=$1
    right=$2
    for _ in 1 2 3; do
        a=${left%%.*}
        a=${a%%[!0-9]*}
        b=${right%%.*}
        b=${b%%[!0-9]*}
        [ "${a:-0}" -gt "${b:-0}" ] && return 0
        [ "${a:-0}" -lt "${b:-0}" ] && return 1
        case $left in *.*) left=${left#*.} ;; *) left=0 ;; esac
        case $right in *.*) right=${right#*.} ;; *) right=0 ;; esac
    done
    return 0
}

# The version this copy of the checkout is (its CLI's pyproject.toml), FLOOR if unreadable.
wanted=
if [ -r "$pyproject" ]; then
    while IFS= read -r line; do
        case $line in
            'version = "'*)
                wanted=${line#'version = "'}
                wanted=${wanted%%\"*}
                break
                ;;
        esac
    done <"$pyproject"
fi
[ -n "$wanted" ] || wanted=$FLOOR

# version_of EXE: sets `version` to what `EXE --version` says (empty: not an anamnesis that
# answers), from the memo while the memo is newer than EXE. A failed answer is not
# remembered: an executable being installed right now answers properly a moment later.
version_of() {
    asked=$1
    version=
    if [ -f "$memo" ] && [ "$memo" -nt "$asked" ]; then
        while IFS=' ' read -r known path; do
            if [ "$path" = "$asked" ]; then
                [ "$known" = - ] || version=$known
                return 0
            fi
        done <"$memo"
    fi
    said=$("$asked" --version </dev/null 2>/dev/null) || return 0
    set -f
    set -- $said
    set +f
    if [ "${1:-}" = anamnesis ]; then
        case ${2:-} in [0-9]*) version=$2 ;; esac
    fi
    remember "$asked" "${version:--}"
    return 0
}

# remember EXE VERSION: rewrite the memo with this line, keeping the lines still valid
# (their executable not changed since the memo was written).
remember() {
    mkdir -p "$state" 2>/dev/null || return 0
    fresh=$memo.$$
    {
        if [ -f "$memo" ]; then
            while IFS=' ' read -r known path; do
                [ "$path" != "$1" ] && [ -n "$path" ] && [ "$memo" -nt "$path" ] \
                    && printf '%s %s\n' "$known" "$path"
            done <"$memo"
        fi
        printf '%s %s\n' "$2" "$1"
    } >"$fresh" 2>/dev/null && mv -f "$fresh" "$memo" 2>/dev/null
    rm -f "$fresh" 2>/dev/null
    return 0
}

# find_uv: sets `uv` to uv's path (PATH, then where its installers put it), or empty.
find_uv() {
    uv=$(command -v uv 2>/dev/null) || uv=
    for candidate in "$HOME/.local/bin/uv" "$HOME/.cargo/bin/uv"; do
        [ -n "$uv" ] && return 0
        [ -x "$candidate" ] && uv=$candidate
    done
    return 0
}

# choose: sets `exe` (the `anamnesis` to run, empty: none of ours), `exe_version`, and
# `stale` (1 when it is ours but older than this copy).
choose() {
    exe=
    exe_version=
    stale=0
    find_uv
    tool_bin=
    on_path=$(command -v anamnesis 2>/dev/null) || on_path=
    seen=
    for source in path uv local; do
        case $source in
            path) candidate=$on_path ;;
            uv)
                [ -n "$uv" ] || continue
                tool_bin=$("$uv" tool dir --bin 2>/dev/null) || tool_bin=
                [ -n "$tool_bin" ] || continue
                candidate=$tool_bin/anamnesis
                ;;
            local) candidate=${XDG_BIN_HOME:-$HOME/.local/bin}/anamnesis ;;
        esac
        [ -n "$candidate" ] && [ -x "$candidate" ] && [ ! -d "$candidate" ] || continue
        case " $seen " in *" $candidate "*) continue ;; esac
        seen="$seen $candidate"
        version_of "$candidate"
        [ -n "$version" ] && at_least "$version" "$FLOOR" || continue
        if at_least "$version" "$wanted"; then
            exe=$candidate
            exe_version=$version
            stale=0
            return 0
        fi
        if [ -z "$exe" ]; then  # the first of ours, unless a later one is new enough
            exe=$candidate
            exe_version=$version
            stale=1
        fi
    done
    return 0
}

# -- installing ----------------------------------------------------------------------------

# The command that installs this copy by hand (for the messages).
install_line() {
    if command -v python3 >/dev/null 2>&1; then
        printf 'python3 %s' "$(shq "$root/scripts/install.py")"
    else
        printf 'uv run --no-project --python 3.12 %s' "$(shq "$root/scripts/install.py")"
    fi
}

# start_install: start installing this copy in the background unless an install is
# running, or failed or was done within the hour; sets `install` to started, running,
# failed, done (this version installed, yet no `anamnesis` of ours is found: a hook must
# not install it again and again; another version of the plugin installs its own), or
# unwritable (no folder for the lock and the log).
start_install() {
    mkdir -p "$state" "$logs" 2>/dev/null
    lock=$state/install.lock
    if ! mkdir "$lock" 2>/dev/null; then
        [ -d "$state" ] || { install=unwritable; return 0; }
        holder=$(cat "$lock/pid" 2>/dev/null) || holder=
        if [ -n "$holder" ] && kill -0 "$holder" 2>/dev/null; then
            install=running
            return 0
        fi
        rm -rf "$lock"
        mkdir "$lock" 2>/dev/null || { install=running; return 0; }
    fi
    failed=$state/install.failed
    if [ -f "$failed" ] && [ -n "$(find "$failed" -mmin -60 2>/dev/null)" ]; then
        rmdir "$lock" 2>/dev/null
        install=failed
        return 0
    fi
    done_at=$state/install.done  # the version installed, within the hour
    if [ -f "$done_at" ] && [ "$(cat "$done_at" 2>/dev/null)" = "$wanted" ] \
        && [ -n "$(find "$done_at" -mmin -60 2>/dev/null)" ]; then
        rmdir "$lock" 2>/dev/null
        install=done
        return 0
    fi
    if command -v setsid >/dev/null 2>&1; then
        detach=setsid
    else
        detach=nohup
    fi
    $detach sh "$root/plugin/anamnesis.sh" --install-now </dev/null >>"$log" 2>&1 &
    printf '%s\n' "$!" >"$lock/pid"
    install=started
}

# install_now: the background install itself (`--install-now`), its output in the log.
install_now() {
    lock=$state/install.lock
    printf '%s\n' "$$" >"$lock/pid" 2>/dev/null
    echo "== $(date '+%Y-%m-%d %H:%M:%S'): installing anamnesis $wanted from $root"
    find_uv
    status=1
    if [ -z "$uv" ]; then
        echo "uv is not installed: nothing was done"
    else
        PATH=${uv%/*}:$PATH
        export PATH
        # A Python to run scripts/install.py with (it finds the best one to install with);
        # never the project's virtual environment the session happens to run in.
        python=$(cd "$root" && "$uv" python find --system '>=3.11' 2>/dev/null) \
            || python=$(cd "$root" && "$uv" python find --no-project '>=3.11' 2>/dev/null) \
            || python=$(command -v python3 2>/dev/null) \
            || python=
        if [ -z "$python" ]; then
            echo "no Python 3.11+ here: uv installs one"
            "$uv" python install 3.12 \
                && python=$(cd "$root" && "$uv" python find --no-project '>=3.11' 2>/dev/null) \
                || python=
        fi
        if [ -n "$python" ]; then
            (cd "$root" && "$python" "$root/scripts/install.py") && status=0
        fi
    fi
    if [ "$status" -eq 0 ]; then
        rm -f "$state/install.failed"
        printf '%s\n' "$wanted" >"$state/install.done"
        echo "== installed"
    else
        rm -f "$state/install.done"
        : >"$state/install.failed"
        echo "== failed; by hand: $(install_line)"
    fi
    rm -rf "$lock"
    return "$status"
}

# say LINE: what the session start shows the person (JSON: a message for them, which
# Claude Code shows as it is, and nothing for the model).
say() {
    printf '{"systemMessage": %s}\n' "$(json_string "Anamnesis: $1")"
}

# -- the command line ----------------------------------------------------------------------

if [ $# -eq 0 ]; then
    echo "usage: sh $0 HOOK|serve [ARGS...]  (or --which)" >&2
    exit 2
fi

case $1 in
    --install-now)
        install_now
        exit $?
        ;;
esac

choose

case $1 in
    --which)
        if [ -n "$exe" ]; then
            echo "$exe $exe_version"
            [ "$stale" -eq 1 ] && echo "(older than this copy, $wanted: it would be updated)"
            exit 0
        fi
        echo "no anamnesis $wanted or newer on PATH or in uv's tool folder" >&2
        exit 1
        ;;
esac

if [ -n "$exe" ]; then
    if [ "$stale" -eq 1 ] && [ "$1" = inject ] \
        && [ ! -f "$state/updated-to-$wanted" ] && [ -n "$uv" ]; then
        # Ours, but older than this copy: it runs now, and this copy replaces it for the
        # sessions to come (once per version of the plugin, said in the install's log).
        mkdir -p "$state" 2>/dev/null && : >"$state/updated-to-$wanted" 2>/dev/null
        start_install
    fi
    if [ "$1" = serve ]; then
        exec "$exe" "$@"
    fi
    "$exe" "$@"
    exit 0  # a hook fails open, whatever `anamnesis` said
fi

# None of ours: install this copy (the session start says so; the other hooks stay quiet).
if [ -z "$uv" ]; then
    reason="uv is not installed, and Anamnesis installs its \`anamnesis\` command with it. \
Run \`pip install uv\` (or see https://docs.astral.sh/uv/), then \`$(install_line)\`, \
and start a new session."
else
    start_install
    case $install in
        started | running)
            reason="installing its \`anamnesis\` command from the plugin in the background \
(log: $log); memory starts with a session after it is done. \
To sync notes between machines, run \`anamnesis init --remote URL\` then."
            ;;
        failed)
            reason="its \`anamnesis\` command could not be installed (see $log; it is \
tried again an hour after). By hand: \`$(install_line)\`"
            ;;
        done)
            reason="its \`anamnesis\` command was installed (see $log) but is neither on \
PATH nor in uv's tool folder (\`uv tool dir --bin\`); put that folder on PATH, or by hand: \
\`$(install_line)\`"
            ;;
        *)
            reason="cannot write to $home to install its \`anamnesis\` command; \
by hand: \`$(install_line)\`"
            ;;
    esac
fi
case $1 in
    inject) say "$reason" ;;
    serve)
        echo "anamnesis: $reason" >&2
        exit 1
        ;;
esac
exit 0

"""Project keys: the same project gets the same key on every machine, without git."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from anamnesis_testsupport.checkouts import checkout

from anamnesis.ops.project import find_git_dir, normalize_remote, origin_url, resolve_project_key


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:o/r.git",
        "git@github.com:O/R.GIT",
        "git@github.com:/o/r.git",
        "https://github.com/o/r",
        "https://github.com/o/r.git/",
        "ssh://git@github.com/o/r.git",
        "ssh://git@github.com:22/o/r",
        "https://user:token@GitHub.com/O/R.git",
        "git://github.com/o/r.git",
        "github.com:o/r",
    ],
)
def test_every_spelling_of_a_remote_gives_one_key(url: str) -> None:
    assert normalize_remote(url) == "github.com/o/r"


def test_other_remote_forms() -> None:
    assert normalize_remote("file:///srv/git/memory.git") == "/srv/git/memory"
    assert normalize_remote("/srv/git/memory.git") == "/srv/git/memory"
    assert (
        normalize_remote("git@gitlab.example.com:group/sub/proj.git")
        == "gitlab.example.com/group/sub/proj"
    )


def test_order_marker_then_origin_then_repo_then_cwd(tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = checkout(home / "src" / "API", "git@github.com:acme/api.git")
    deep = repo / "pkg" / "sub"
    deep.mkdir(parents=True)
    assert resolve_project_key(deep, home=home) == "github.com/acme/api"
    (repo / ".anamnesis").mkdir()
    (repo / ".anamnesis" / "project").write_text("\n\n  custom/key  \nignored\n")
    assert resolve_project_key(deep, home=home) == "custom/key"
    plain = checkout(home / "src" / "NoRemote", None)
    assert resolve_project_key(plain / ".", home=home) == "noremote"
    loose = home / "scratch" / "Notes"
    loose.mkdir(parents=True)
    assert resolve_project_key(loose, home=home) == "notes"


def test_a_marker_at_or_above_home_is_ignored(tmp_path: Path) -> None:
    home = tmp_path / "home"
    work = home / "work"
    work.mkdir(parents=True)
    for place in (home, tmp_path):
        (place / ".anamnesis").mkdir(exist_ok=True)
        (place / ".anamnesis" / "project").write_text("hijack")
    assert resolve_project_key(work, home=home) == "work"


def test_root_is_global(tmp_path: Path) -> None:
    assert resolve_project_key("/", home=tmp_path) == "global"


def test_worktree_reads_the_shared_config(tmp_path: Path) -> None:
    main = checkout(tmp_path / "main", "git@github.com:acme/api.git")
    worktree_git = main / ".git" / "worktrees" / "feature"
    worktree_git.mkdir(parents=True)
    (worktree_git / "commondir").write_text("../..\n")
    feature = tmp_path / "feature"
    feature.mkdir()
    (feature / ".git").write_text(f"gitdir: {worktree_git}\n")
    assert find_git_dir(feature) == (feature, worktree_git)
    assert origin_url(worktree_git) == "git@github.com:acme/api.git"
    assert resolve_project_key(feature, home=tmp_path / "nohome") == "github.com/acme/api"


def test_submodule_has_its_own_origin(tmp_path: Path) -> None:
    parent = checkout(tmp_path / "parent", "git@github.com:acme/parent.git")
    module_git = parent / ".git" / "modules" / "lib"
    module_git.mkdir(parents=True)
    (module_git / "config").write_text(
        '[remote "origin"]\n\turl = https://github.com/acme/lib.git\n'
    )
    lib = parent / "lib"
    lib.mkdir()
    (lib / ".git").write_text("gitdir: ../.git/modules/lib\n")
    assert resolve_project_key(lib, home=tmp_path / "nohome") == "github.com/acme/lib"
    assert resolve_project_key(parent, home=tmp_path / "nohome") == "github.com/acme/parent"


def test_git_config_syntax(tmp_path: Path) -> None:
    git_dir = tmp_path / ".git"
    git_dir.mkdir()
    (git_dir / "config").write_text(
        "# comment\n[core]\n\tbare = false\n"
        '[remote "upstream"]\n\turl = git@github.com:someone/else.git\n'
        '[Remote "origin"] ; inline comment\n'
        '\tURL = "git@github.com:acme/quoted.git" # trailing comment\n'
    )
    assert origin_url(git_dir) == "git@github.com:acme/quoted.git"
    (git_dir / "config").write_text("[remote.origin]\n\turl = https://example.com/old/style\n")
    assert origin_url(git_dir) == "https://example.com/old/style"


def test_url_shortcuts_are_expanded_as_git_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = checkout(tmp_path / "home" / "src" / "r", "gh:Acme/R")
    home = tmp_path / "home"
    assert resolve_project_key(repo, home=home) == "gh/acme/r"  # no rule: taken as written
    with (repo / ".git" / "config").open("a") as config:
        config.write('[url "https://github.com/"]\n\tinsteadOf = gh:\n'
                     '[url "git@github.com:"]\n\tinsteadOf = g\n')  # fmt: skip
    assert origin_url(repo / ".git") == "https://github.com/Acme/R"  # the longest prefix wins
    assert resolve_project_key(repo, home=home) == "github.com/acme/r"
    # A rule in the user's own git config counts too (where such shortcuts usually live).
    other = checkout(home / "src" / "other", "work:team/tool.git")
    (home / ".gitconfig").write_text('[url "git@gitlab.example.com:"]\n\tinsteadOf = work:\n')
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert resolve_project_key(other, home=home) == "gitlab.example.com/team/tool"
    elsewhere = tmp_path / "global.gitconfig"
    elsewhere.write_text('[url "git@bitbucket.org:"]\n\tinsteadOf = work:\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(elsewhere))  # replaces ~/.gitconfig, as in git
    assert resolve_project_key(other, home=home) == "bitbucket.org/team/tool"


GIT = shutil.which("git")


@pytest.mark.skipif(GIT is None, reason="git binary not installed")
def test_agrees_with_git_for_real_worktrees_and_submodules(tmp_path: Path) -> None:
    assert GIT is not None
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin",
           "GIT_ALLOW_PROTOCOL": "file"}  # fmt: skip

    def git(*args: str, cwd: Path) -> str:
        done = subprocess.run(
            [GIT, *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    lib = tmp_path / "lib"
    lib.mkdir()
    git("init", "-q", "-b", "main", cwd=lib)
    (lib / "f").write_text("x")
    git("add", "f", cwd=lib)
    git("commit", "-qm", "x", cwd=lib)
    repo = tmp_path / "Repo"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    git("remote", "add", "origin", "git@github.com:Acme/Repo.git", cwd=repo)
    git("commit", "-q", "--allow-empty", "-m", "x", cwd=repo)
    git(
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        str(lib),
        "vendor/lib",
        cwd=repo,
    )
    git("worktree", "add", "-q", str(tmp_path / "wt"), cwd=repo)
    short = tmp_path / "Short"
    short.mkdir()
    git("init", "-q", "-b", "main", cwd=short)
    git("config", "url.git@github.com:.insteadOf", "gh:", cwd=short)
    git("remote", "add", "origin", "gh:Acme/Short.git", cwd=short)
    nohome = tmp_path / "nohome"
    for place in (repo, tmp_path / "wt", repo / "vendor" / "lib", short):
        expected_url = git("remote", "get-url", "origin", cwd=place)
        assert resolve_project_key(place, home=nohome) == normalize_remote(expected_url)

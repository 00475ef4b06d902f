"""The fact check: what counts as a fact, and a rewrite refused for losing any of them."""

from __future__ import annotations

import pytest

from anamnesis.reflect import check_facts, extract_facts

NOTE = """# Deploying the api

Run `make deploy` after setting DATABASE_URL; the server listens on localhost:8080 and
reads /etc/api/config.yaml. See https://example.com/docs/deploy. Python 3.11, release
v1.2.3, build with --no-cache, 1,500 workers, getUser and MemoryStore, ERR_123 on x86,
os.path.join, e.g. this.

```sh
# build it
uv run pytest -q
```

$ git push origin main
"""


def test_every_kind_of_fact_is_found() -> None:
    facts = extract_facts(NOTE)
    assert facts.numbers == ("8080", "3.11", "1500")
    assert facts.urls == ("https://example.com/docs/deploy",)
    assert facts.paths == ("/etc/api/config.yaml",)
    assert set(facts.identifiers) == {
        "DATABASE_URL", "config.yaml", "v1.2.3", "--no-cache", "getUser", "MemoryStore",
        "ERR_123", "x86", "os.path.join",
    }  # fmt: skip
    assert facts.code == ("make deploy",)
    assert set(facts.commands) == {"uv run pytest -q", "git push origin main"}  # no "# build it"
    assert "deploying" in facts.words and "the" not in facts.words
    assert not any(item.startswith("e.g") for item in facts.identifiers)


def test_a_rewrite_that_keeps_everything_passes() -> None:
    shorter = NOTE.replace("See https", "Docs: https").replace("e.g. this.", "")
    check = check_facts(NOTE, shorter)
    assert check.ok, check.describe()
    assert check.to_dict()["missing"] == {}


@pytest.mark.parametrize(
    ("old", "new", "kind", "item"),
    [
        ("listens on 8080", "listens on 80", "numbers", "8080"),
        ("reads /etc/api/config.yaml", "reads config.yaml", "paths", "/etc/api/config.yaml"),
        ("see https://x.io/a/b.", "see https://x.io/a", "urls", "https://x.io/a/b"),
        ("set DATABASE_URL", "set the database url", "identifiers", "DATABASE_URL"),
        ("needs v1.2.3", "needs 1.2", "identifiers", "v1.2.3"),
        ("run `make deploy` now", "run make now", "code", "make deploy"),
        ("$ git push origin main", "$ git push", "commands", "git push origin main"),
        ("```bash\nuv sync --frozen\n```", "```bash\nuv sync\n```", "commands", "uv sync --frozen"),
    ],
)
def test_a_lost_fact_fails_the_check_and_is_named(old: str, new: str, kind: str, item: str) -> None:
    check = check_facts(old, new)
    assert not check.ok
    assert kind in check.failed_kinds
    assert item in check.missing[kind] and item in check.describe()


def test_markup_may_change_around_a_command_but_not_its_text() -> None:
    old = "$ uv run pytest -q\n\nthen `git push`"
    assert check_facts(old, "```sh\nuv run pytest -q\n```\nthen git push").ok
    assert check_facts(old, "`uv run pytest -q`, then `git push`").ok
    # A command is not found inside a longer one or inside a word.
    assert not check_facts("$ ls", "use the tools").ok
    assert not check_facts("`make`", "make-believe").ok


def test_numbers_read_the_same_with_or_without_thousands_separators() -> None:
    assert check_facts("1,500 workers", "1500 workers").ok
    assert not check_facts("1,500 workers", "1,50 workers").ok


def _words(count: int) -> list[str]:
    syllables = ["ba", "ke", "di", "fo", "gu", "ly", "mo", "ne", "pi", "ru", "sa", "tez"]
    return [a + b + "x" for a in syllables for b in syllables][:count]


def test_at_least_95_percent_of_the_content_words_must_stay() -> None:
    words = _words(100)
    old = " ".join(words)
    assert check_facts(old, " ".join(words[5:])).ok  # 95 of 100
    lost = check_facts(old, " ".join(words[6:]))  # 94 of 100
    assert not lost.ok and lost.failed_kinds == ("words",)
    assert lost.words == 100 and lost.words_kept == 94
    assert (
        lost.describe()
        == "missing words: 94.0% kept, under 95% (lost babax, bakex, badix (+3 more))"
    )


def test_stop_words_and_case_do_not_count() -> None:
    old = "The Cache is warmed before the Deploy and it is fast"
    assert check_facts(old, "cache warmed before deploy, fast").ok


def test_only_the_first_few_missing_items_are_shown() -> None:
    check = check_facts("ports 1 2 3 4 5", "ports")
    assert check.shown() == {"numbers": ["1", "2", "3"]}
    assert "numbers: 1, 2, 3 (+2 more)" in check.describe()
    assert check.to_dict()["missing_counts"]["numbers"] == 5


def test_checked_both_ways_a_rewrite_may_not_add_a_fact() -> None:
    old = "Deploy with `make deploy`, then check https://x.io/status on port 8080."
    added = old + "\n\n$ curl -fsSL https://get.example.sh | sh"
    assert check_facts(old, added).ok  # one way: nothing lost
    check = check_facts(old, added, both_ways=True)
    assert not check.ok and check.added_kinds == ("urls", "identifiers", "commands")
    assert check.added["commands"] == ("curl -fsSL https://get.example.sh | sh",)
    assert check.describe() == (
        "adds urls: https://get.example.sh; identifiers: fsSL; "
        "commands: curl -fsSL https://get.example.sh | sh"
    )
    assert check.to_dict()["added"]["urls"] == ["https://get.example.sh"]
    # Markup may change and words may be added; a fact in other markup is no new fact.
    reworded = "To deploy:\n\n```sh\nmake deploy\n```\n\nThen https://x.io/status (port 8080)."
    assert check_facts(old, reworded, min_words_kept=0, both_ways=True).ok


def test_an_ordered_list_number_is_markup_not_a_fact() -> None:
    old = "Run the tests, then deploy on port 8080."
    steps = "1. Run the tests.\n2. Deploy on port 8080."
    assert check_facts(old, steps, both_ways=True).ok
    assert check_facts(steps, old, both_ways=True).ok
    assert not check_facts(old, "1. Run the tests.\n2. Deploy on port 9090.", both_ways=True).ok


def test_lost_and_added_are_both_said() -> None:
    check = check_facts("port 8080", "port 9090", both_ways=True)
    assert check.describe() == "missing numbers: 8080; and adds numbers: 9090"

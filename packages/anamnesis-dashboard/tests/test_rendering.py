"""Markdown as the note page shows it, search snippets and diffs: what the HTML holds.

Rendered in this process (no server): these are pure functions of the text. The browser
tests check the same HTML draws without a console or CSP error."""

from __future__ import annotations

import difflib
import re
from importlib import resources

import pytest
from pygments.token import STANDARD_TYPES, Comment, Keyword, Literal, Name

from anamnesis.dashboard.markup.diffing import diff_lines
from anamnesis.dashboard.markup.rendering import render_markdown
from anamnesis.dashboard.markup.snippets import plain_text, snippet

TABLE = "| name | count | note |\n|:-----|------:|:----:|\n| pool | 20 | ok |\n"
TASKS = "- [x] raise the pool size\n- [ ] watch p99 for a week\n- plain item\n"
CODE = '```python\ndef pool(n: int) -> int:\n    return min(2 * n, 40)  # "cap" <b>\n```\n'


def test_table_alignment_is_a_class_never_a_style() -> None:
    html = render_markdown(TABLE)
    assert '<th class="align-left">name</th>' in html
    assert '<td class="align-right">20</td>' in html
    assert '<td class="align-center">ok</td>' in html
    assert "style=" not in html


def test_task_lists_are_disabled_checkboxes_not_brackets() -> None:
    html = render_markdown(TASKS)
    assert '<ul class="tasks">' in html
    done, todo = re.findall(r'<li class="task">(<input[^>]*>)', html)
    assert "checked" in done and "disabled" in done and 'type="checkbox"' in done
    assert "checked" not in todo and "disabled" in todo
    assert "[x]" not in html and "[ ]" not in html
    assert "<li>plain item</li>" in html  # a plain item in the same list stays one
    assert "[x] not a task" in render_markdown("[x] not a task\n")  # only list items


def test_blockquotes_render_as_blockquotes() -> None:
    assert "<blockquote>\n<p>keep the sum under 100</p>\n</blockquote>" in render_markdown(
        "> keep the sum under 100\n"
    )


def test_fenced_code_is_highlighted_with_classes_and_escaped() -> None:
    html = render_markdown(CODE)
    assert html.startswith('<pre class="highlight"><code class="language-python">')
    assert '<span class="k">def</span>' in html and '<span class="nf">pool</span>' in html
    assert '<span class="c1"># "cap" &lt;b&gt;</span>' in html
    assert "<b>" not in html and "style=" not in html


def test_code_in_no_known_language_is_shown_plain() -> None:
    html = render_markdown("```nosuchlanguage\n<script>x()</script>\n```\n\n    indented <i>\n")
    assert '<pre><code class="language-nosuchlanguage">&lt;script&gt;' in html
    assert "<pre><code>indented &lt;i&gt;" in html
    assert "<script>" not in html and 'class="highlight"' not in html


def test_no_style_attribute_anywhere_in_a_note_using_everything() -> None:
    body = "\n".join(["# Title", TABLE, TASKS, "> quoted", CODE, "~~gone~~ `x` **b**"])
    html = render_markdown(body)
    assert "style=" not in html
    assert "<s>gone</s>" in html and "<code>x</code>" in html


@pytest.mark.parametrize("kind", [Comment, Keyword, Literal.String, Literal.Number, Name.Builtin])
def test_the_stylesheet_colours_every_token_of_each_kind_it_colours(kind: object) -> None:
    css = (resources.files("anamnesis.dashboard") / "static" / "highlight.css").read_text()
    classes = [
        short
        for token, short in STANDARD_TYPES.items()
        if short and token in kind  # type: ignore[operator]
    ]
    missing = [short for short in classes if f".highlight .{short} " not in css
               and f".highlight .{short}," not in css]  # fmt: skip
    assert classes and not missing, missing


SNIPPET_BODY = """## Context

We set the **pool size** to 20 `connections` after [the incident](https://example.com).

- [x] pooling done
"""


def test_a_snippet_is_plain_text_without_markdown_syntax() -> None:
    text = plain_text(SNIPPET_BODY)
    assert text == (
        "Context · We set the pool size to 20 connections after the incident. · pooling done"
    )
    assert not any(mark in text for mark in ("##", "**", "`", "](", "[x]"))


def test_a_snippet_marks_the_query_s_words_and_escapes_the_rest() -> None:
    shown = snippet(SNIPPET_BODY + "\n<b>pool</b> & more\n", "what is the pool size")
    assert "<mark>pool</mark> <mark>size</mark>" in shown
    assert "<mark>pooling</mark>" in shown  # the index stems: pool finds pooling
    assert "&lt;b&gt;<mark>pool</mark>&lt;/b&gt; &amp; more" in shown
    assert "<mark>the</mark>" not in shown and "<mark>is</mark>" not in shown  # stop words


def test_a_snippet_starts_near_the_first_hit_of_a_long_note() -> None:
    body = "filler words here. " * 40 + "The deployment failed twice. " + "tail. " * 40
    shown = snippet(body, "deploy")
    assert shown.startswith("…") and shown.endswith("…")
    assert "<mark>deployment</mark> failed twice" in shown
    assert len(re.sub(r"<[^>]+>", "", shown)) <= 250


def test_a_snippet_without_a_hit_is_the_start_of_the_note() -> None:
    assert snippet("## Plan\n\nfirst step", "zebra") == "Plan · first step"


def test_a_diff_numbers_its_lines_and_marks_the_words_that_changed() -> None:
    old = "title: a\nuse 20 connections here\nkeep\n"
    new = "title: a\nuse 40 connections here\nkeep\nadded line\n"
    rows = diff_lines(old, new, "old", "new")
    assert [(r.kind, r.old_no, r.new_no) for r in rows] == [
        ("hunk", None, None), ("same", 1, 1), ("del", 2, None), ("add", None, 2),
        ("same", 3, 3), ("add", None, 4),
    ]  # fmt: skip
    removed, added = rows[2], rows[3]
    assert [(p.text, p.changed) for p in removed.parts] == [
        ("use ", False),
        ("20", True),
        (" connections here", False),
    ]
    assert [(p.text, p.changed) for p in added.parts] == [
        ("use ", False),
        ("40", True),
        (" connections here", False),
    ]
    assert rows[5].parts[0].text == "added line" and not rows[5].parts[0].changed


def test_unrelated_lines_are_not_compared_word_by_word() -> None:
    rows = diff_lines("alpha beta gamma\n", "completely different words\n", "a", "b")
    assert all(len(row.parts) == 1 for row in rows if row.kind in ("add", "del"))


def test_a_diff_reads_as_a_unified_diff() -> None:
    old = "\n".join(f"line {n}" for n in range(40))
    new = old.replace("line 5\n", "").replace("line 30", "line thirty") + "\nend"
    expected = [
        line
        for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="")
        if not line.startswith(("---", "+++"))
    ]
    assert [row.text for row in diff_lines(old, new, "a", "b")] == expected
    assert diff_lines(old, old, "a", "b") == []

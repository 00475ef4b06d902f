"""The edit page's form (title, type, scope, project, tags, body) over a real store: what
it saves, what it keeps, what it refuses, and the merge page a changed file leads to."""

from __future__ import annotations

import html
import re

import httpx

from anamnesis.store import MemoryStore

MARKERS = ("<unicode string>", "while scanning", "while parsing", "column")  # PyYAML's report


def _edit_form(client: httpx.Client, note_id: str) -> dict[str, str]:
    """The form's fields as the edit page fills them (hidden ones included)."""
    page = client.get(f"/notes/{note_id}/edit")
    assert page.status_code == 200, page.text
    return _form_values(page.text)


def _form_values(text: str) -> dict[str, str]:
    form = text[text.index('<form method="post" action="/notes/') :]
    form = form[: form.index("</form>")]
    values = {
        name: html.unescape(value)
        for name, value in re.findall(r'<input type="[a-z]+" name="(\w+)" value="([^"]*)"', form)
    }
    for name, options in re.findall(r'<select name="(\w+)">(.*?)</select>', form, re.S):
        chosen = re.search(r"<option selected>([^<]*)</option>", options)
        assert chosen, f"no {name} selected"
        values[name] = html.unescape(chosen.group(1))
    body = re.search(r'<textarea name="body"[^>]*>\n(.*?)</textarea>', form, re.S)
    assert body, "no body editor"
    values["body"] = html.unescape(body.group(1))
    return values


def _diff_rows(page: str) -> list[tuple[str, str]]:
    """(kind, text) of each added or removed row of the page's diff, as read."""
    rows = re.findall(r'<(span|tr) class="d-(add|del)">(.*?)</\1>', page, re.S)
    return [(kind, html.unescape(re.sub(r"<[^>]+>", "", text)).strip()) for _, kind, text in rows]


def test_the_form_shows_the_fields_and_saves_each_keeping_the_rest(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = store.write(
        type="semantic", title="Pool size", body="use 20\n\n- one\n- two", project="api",
        tags=["db", "pool"], machine_id="desktop", supersedes=["01J00000000000000000000000"],
        extra={"reviewed_by": "ana"},
    )  # fmt: skip
    form = _edit_form(client, note.id)
    assert {k: form[k] for k in ("title", "type", "scope", "project", "tags", "body")} == {
        "title": "Pool size", "type": "semantic", "scope": "portable", "project": "api",
        "tags": "db, pool", "body": "use 20\n\n- one\n- two",
    }  # fmt: skip

    unchanged = client.post(f"/notes/{note.id}", data=form)
    assert unchanged.status_code == 303, unchanged.text
    same = store.get(note.id)
    assert same.replace(updated_at="") == note.replace(updated_at="")  # a round trip

    form = _edit_form(client, note.id)
    edited = {
        **form, "title": "Pool size for the API", "type": "procedural",
        "scope": "machine-local", "project": "api-v2", "tags": " db , tuning,,db ",
        "body": "use 40\r\n\r\n- one\r\n- two",  # a browser sends a textarea's lines so
    }  # fmt: skip
    answer = client.post(f"/notes/{note.id}", data=edited)
    assert answer.status_code == 303, answer.text
    saved = store.get(note.id)
    assert (saved.title, saved.type, saved.scope, saved.project) == (
        "Pool size for the API", "procedural", "machine-local", "api-v2",
    )  # fmt: skip
    assert saved.tags == ["db", "tuning"]
    assert saved.body == "use 40\n\n- one\n- two"
    # Not on the form: kept as the file had them.
    assert saved.machine_id == "desktop"
    assert saved.supersedes == ["01J00000000000000000000000"]
    assert saved.extra == {"reviewed_by": "ana"}
    assert saved.created_at == note.created_at
    assert store.file_of(note.id).is_relative_to(store.local_dir)  # moved with its scope
    again = _edit_form(client, note.id)
    assert (again["type"], again["scope"], again["tags"]) == ("procedural", "machine-local",
                                                              "db, tuning")  # fmt: skip


def test_an_empty_body_is_refused_with_the_cli_s_words_and_the_text_kept(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="Pool size", body="use 20", project="api")
    before = store.file_of(note.id).read_bytes()
    form = _edit_form(client, note.id)
    answer = client.post(f"/notes/{note.id}", data={**form, "title": "Kept title", "body": " \n"})
    assert answer.status_code == 422
    assert "Not saved: the note&#39;s body is empty" in answer.text
    assert _form_values(answer.text)["title"] == "Kept title"  # what was typed comes back
    assert store.file_of(note.id).read_bytes() == before

    raw_page = client.get(f"/notes/{note.id}/edit", params={"raw": "1"}).text
    source = re.search(r'<textarea name="source"[^>]*>\n(.*?)</textarea>', raw_page, re.S)
    assert source
    emptied = html.unescape(source.group(1)).replace("use 20", "")
    raw_form = {"csrf": form["csrf"], "digest": form["digest"], "source": emptied}
    raw = client.post(f"/notes/{note.id}", data=raw_form)
    assert raw.status_code == 422 and "the note&#39;s body is empty" in raw.text
    assert store.file_of(note.id).read_bytes() == before


def test_invalid_fields_are_the_store_s_refusal(store: MemoryStore, client: httpx.Client) -> None:
    note = store.write(type="semantic", title="Pool size", body="use 20", project="api")
    form = _edit_form(client, note.id)
    for change, words in (
        ({"type": "wishful"}, "&#39;wishful&#39; is not one of"),
        ({"title": "  "}, "title: must not be empty"),
        ({"project": ""}, "project: must not be empty"),
    ):
        answer = client.post(f"/notes/{note.id}", data={**form, **change})
        assert answer.status_code == 422, change
        assert words in answer.text, (change, answer.text)
    assert store.get(note.id).title == "Pool size"


def test_raw_yaml_errors_name_the_file_s_line_not_pyyaml_s_report(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="Pool size", body="use 20", project="api")
    raw_page = client.get(f"/notes/{note.id}/edit", params={"raw": "1"}).text
    source = re.search(r'<textarea name="source"[^>]*>\n(.*?)</textarea>', raw_page, re.S)
    digest = re.search(r'name="digest" value="([0-9a-f]{64})"', raw_page)
    assert source and digest
    lines = html.unescape(source.group(1)).split("\n")
    title_line = next(n for n, line in enumerate(lines, start=1) if line.startswith("title:"))
    lines[title_line - 1] = "title: 'never closed"
    answer = client.post(
        f"/notes/{note.id}",
        data={"csrf": _edit_form(client, note.id)["csrf"], "digest": digest.group(1),
              "source": "\n".join(lines)},
    )  # fmt: skip
    assert answer.status_code == 422
    said = html.unescape(answer.text)
    assert f"the frontmatter is not valid YAML: line {title_line}: a quoted value" in said, said
    assert not [marker for marker in MARKERS if marker in said]
    assert "title: 'never closed" in said  # the typed file stays in the editor


def test_a_file_broken_by_hand_names_its_line_on_the_note_edit_and_status_pages(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="Pool size", body="use 20", project="api")
    path = store.file_of(note.id)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("project: api\n", "project api\n"), encoding="utf-8")
    said = f"line {text.split(chr(10)).index('project: api') + 1}: this line is not 'key: value'"
    for address in (f"/notes/{note.id}", f"/notes/{note.id}/edit", "/status"):
        answer = client.get(address)
        page = html.unescape(answer.text)
        assert said in page, address
        assert not [marker for marker in MARKERS if marker in page], address
        assert answer.status_code == (200 if address == "/status" else 409)


def test_a_changed_file_gives_the_merge_page_with_both_versions_and_their_diff(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="Ports", body="api on 8000\nweb on 3000", project="p")
    form = _edit_form(client, note.id)
    store.update(note.id, title="Ports (desktop)", body="api on 7000\nweb on 3000")
    mine = {**form, "body": "api on 9000\nweb on 3000", "tags": "net"}
    answer = client.post(f"/notes/{note.id}", data=mine)
    assert answer.status_code == 409
    page = answer.text
    assert 'id="conflict"' in page and 'id="take-theirs"' in page and 'id="keep-mine"' in page
    fields = _form_values(page)
    assert fields["body"] == "api on 9000\nweb on 3000"  # my edit, in the editor
    assert fields["tags"] == "net" and fields["title"] == "Ports"
    assert fields["digest"] != form["digest"]  # saving from here replaces the file now
    diff = _diff_rows(page)  # line rows, coloured by their class
    assert ("del", "-title: Ports (desktop)") in diff and ("add", "+title: Ports") in diff
    assert ("del", "-api on 7000") in diff and ("add", "+api on 9000") in diff
    assert ("add", "+tags: net") in diff and ("same", " web on 3000") not in diff
    theirs = re.search(r'<div hidden id="fill-theirs"([^>]*)>', page)
    assert theirs and 'data-body="api on 7000\nweb on 3000"' in theirs.group(1)
    assert 'data-title="Ports (desktop)"' in theirs.group(1)
    sent = re.search(r'<pre class="source" id="mine-sent">(.*?)</pre>', page, re.S)
    assert sent and "api on 9000" in sent.group(1)
    assert store.get(note.id).body == "api on 7000\nweb on 3000"  # nothing was written

    again = client.post(f"/notes/{note.id}", data=fields)
    assert again.status_code == 303
    saved = store.get(note.id)
    assert (saved.title, saved.body, saved.tags) == ("Ports", "api on 9000\nweb on 3000", ["net"])


def test_the_dates_are_on_the_form_set_cleared_and_checked(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="Freeze", body="no deploys", project="api")
    page = client.get(f"/notes/{note.id}/edit").text
    assert '<input type="date" name="valid_until" value="">' in page
    assert '<input type="date" name="review_after" value="">' in page

    form = _edit_form(client, note.id)
    unchanged = client.post(f"/notes/{note.id}", data=form)
    assert unchanged.status_code == 303
    assert store.get(note.id).reviewed_at == ""  # nothing changed: nobody reviewed anything

    form = _edit_form(client, note.id)
    dated = client.post(
        f"/notes/{note.id}", data={**form, "valid_until": "2020-01-31", "review_after": "+30d"}
    )
    assert dated.status_code == 303, dated.text
    saved = store.get(note.id)
    assert saved.valid_until == "2020-01-31"
    assert len(saved.review_after) == 10 and saved.review_after > saved.created_at[:10]
    assert saved.reviewed_at  # a person's edit: reviewed now
    assert _edit_form(client, note.id)["valid_until"] == "2020-01-31"

    form = _edit_form(client, note.id)
    bad = client.post(f"/notes/{note.id}", data={**form, "valid_until": "2027-02-30"})
    assert bad.status_code == 422
    assert "valid_until: &#39;2027-02-30&#39; is not a date on the calendar" in bad.text
    assert _form_values(bad.text)["valid_until"] == "2027-02-30"  # what was typed comes back
    assert store.get(note.id).valid_until == "2020-01-31"

    cleared = client.post(f"/notes/{note.id}", data={**form, "valid_until": ""})
    assert cleared.status_code == 303
    assert store.get(note.id).valid_until == ""


def test_a_timestamp_is_kept_by_a_save_of_the_form(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="Freeze", body="no deploys", project="api",
                       valid_until="2030-01-31T18:00:00+00:00")  # fmt: skip
    page = client.get(f"/notes/{note.id}/edit").text
    # A date input would show a timestamp empty, and the save would clear it: text, then.
    assert '<input type="text" name="valid_until" value="2030-01-31T18:00:00+00:00">' in page
    form = _edit_form(client, note.id)
    answer = client.post(f"/notes/{note.id}", data={**form, "title": "Code freeze"})
    assert answer.status_code == 303
    assert store.get(note.id).valid_until == "2030-01-31T18:00:00+00:00"


def test_the_raw_view_edits_the_dates_too(store: MemoryStore, client: httpx.Client) -> None:
    note = store.write(type="semantic", title="Freeze", body="no deploys", project="api")
    raw_page = client.get(f"/notes/{note.id}/edit", params={"raw": "1"}).text
    source = re.search(r'<textarea name="source"[^>]*>\n(.*?)</textarea>', raw_page, re.S)
    digest = re.search(r'name="digest" value="([0-9a-f]{64})"', raw_page)
    assert source and digest
    text = html.unescape(source.group(1)).replace("tags: []", "tags: []\nvalid_until: 2020-01-31")
    csrf = _edit_form(client, note.id)["csrf"]
    answer = client.post(
        f"/notes/{note.id}", data={"csrf": csrf, "digest": digest.group(1), "source": text}
    )
    assert answer.status_code == 303, answer.text
    saved = store.get(note.id)
    assert saved.valid_until == "2020-01-31" and saved.reviewed_at
    note_page = client.get(f"/notes/{note.id}").text
    assert "Expired: it held until 2020-01-31." in note_page

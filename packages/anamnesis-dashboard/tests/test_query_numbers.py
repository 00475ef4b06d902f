"""Every number in a query string is read in one place: malformed or out of range, it is a
400 that names the parameter and what it takes, never a 500 (``?page=`` past what SQLite
holds once ended in an OverflowError)."""

from __future__ import annotations

import httpx
import pytest

from anamnesis.store import MemoryStore

PAGE = "page must be a whole number from 1 to 1,000,000"
K = "k must be a whole number from 1 to 100"


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("/?page=99999999999999999999", PAGE),
        ("/?page=" + "9" * 5000, PAGE),
        ("/?page=1000001", PAGE),
        ("/?page=0", PAGE),
        ("/?page=-1", PAGE),
        ("/?page=1.5", PAGE),
        ("/?page=1_000", PAGE),
        ("/?page=%D9%A3", PAGE),  # an Arabic-Indic 3: int() would take it
        ("/?page=abc&type=semantic", PAGE),
        ("/search?q=x&k=99999999999999999999", K),
        ("/search?q=x&k=0", K),
        ("/search?q=x&k=101", K),
        ("/search?q=x&k=%EF%BC%95", K),  # a fullwidth 5
        ("/search?k=many", K),
    ],
)
def test_a_bad_number_in_a_query_is_a_400_that_says_what_to_send(
    client: httpx.Client, address: str, message: str
) -> None:
    answer = client.get(address)
    assert answer.status_code == 400, answer.text[:500]
    assert message in answer.text
    assert "Traceback" not in answer.text and len(answer.text) < 20_000


def test_good_numbers_still_page_and_search(store: MemoryStore, client: httpx.Client) -> None:
    for n in range(51):
        store.write(type="episodic", title=f"session {n:02d}", body="paged", project="p")
    assert "session 00" in client.get("/?page=2").text
    assert "session 00" in client.get("/?page=002").text  # leading zeros are still 2
    last = client.get("/?page=1000000")  # past the last page: an empty page, not an error
    assert last.status_code == 200 and "session" not in last.text.split("<main", 1)[-1]
    found = client.get("/search", params={"q": "paged", "k": " 3 "})
    assert found.status_code == 200 and found.text.count('class="score"') == 3

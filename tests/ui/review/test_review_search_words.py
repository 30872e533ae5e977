"""Review's search of several words finds them in the order typed (walkthrough 3, A17: "Open Note A" also listed
the "Open Note B …" runs, its one-letter last word read as the beginning of any word). One word is still read as
the beginning of a word ("lasag" finds lasagna), as is a last word of three letters or more.

A real store, the Review panel offscreen, the search typed into its box.
"""
import pytest

from testkit.fakeruns import make_run


@pytest.fixture
def notes_review(panel, store):
    tasks = {"a": "Open Note A and read its first line", "b": "Open Note B and check it says a word",
             "lasagna": "Find a vegetarian lasagna recipe", "about": "Read about the notes app"}
    ids = {key: make_run(store, steps=1, task=task) for key, task in tasks.items()}
    return panel(), ids


def found(qtbot, p, text: str) -> set[str]:
    p.browser.search.clear()
    qtbot.keyClicks(p.browser.search, text)
    p.browser.apply_filter()  # (the list also follows as it is typed; read it now)
    return set(p.browser.model.ids)


@pytest.mark.parametrize("text, keys", [
    ("Open Note A", {"a"}),  # not Note B, though its task has "a word" later on
    ("open note b", {"b"}),
    ("Open Not", {"a", "b"}),  # three letters: the beginning of a word
    ("lasag", {"lasagna"}),  # one word: the beginning of a word
    ("vegetarian lasag", {"lasagna"}),
    ("lasagna vegetarian", set()),  # the words in the order typed
    ("Note A", {"a"}),
])
def test_search_finds_the_words_in_the_order_typed(qtbot, notes_review, text, keys):
    p, ids = notes_review
    assert found(qtbot, p, text) == {ids[k] for k in keys}


def test_search_finds_the_words_with_a_few_words_in_between(qtbot, panel, store):
    """Walkthrough 8: "Delete the first item in the Tiny" listed 1 of the 4 such runs, the others having
    "(Invoice 101)" inside the phrase."""
    tasks = ["Delete the first item in the Tiny Office items list",
             "Delete the first item (Invoice 101) in the Tiny Office items list",
             "Delete the first item (Invoice 102) in the Tiny Office list",
             "Tiny Office: in the first item, Delete nothing",  # the words, but not in that order
             "Delete the draft report item"]
    ids = [make_run(store, steps=1, task=task) for task in tasks]
    p = panel()
    assert found(qtbot, p, "Delete the first item in the Tiny") == set(ids[:3])
    assert found(qtbot, p, "first item (Invoice 101)") == {ids[1]}
    assert found(qtbot, p, "delete item") == {ids[0], ids[1], ids[2], ids[4]}  # not ids[3]: the order typed
    assert found(qtbot, p, "delete list") == set()  # at most three words between them
    assert found(qtbot, p, "( ) 101") == {ids[1]}  # marks alone are no words

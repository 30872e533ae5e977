"""Each kind of row merged from elsewhere has its own fields an older file may lack: a run label may lack its
side effects and repetition, an adjudication its category and key points; anything else missing is refused."""
import pytest

from cockpit.core.store import Store, StoreError
from cockpit.core.store import adjudications as adj
from cockpit.core.store import labels as lb
from cockpit.core.store.labelmerge import merge_adjudications, merge_labels
from tests.core.store.bundle_helpers import make_runs


def _label(**fields) -> dict:
    row = {"run_id": "r1", "annotator": "alice", "verdict": "fail", "category": "Navigation stuck",
           "comment": "", "seconds": 3.0, "blind": 0, "created": 2000.0}
    row.update(fields)
    return {k: v for k, v in row.items() if v is not ...}


def test_an_older_label_without_side_effects_keeps_what_the_store_knows(tmp_path):
    with Store(tmp_path / "h") as s:
        make_runs(s)
        lb.set_label(s, "r1", "alice", "fail", category="Navigation stuck", seconds=3.0, side_effects="yes",
                     repetition="no")
        have = lb.labels(s, "r1")[0]
        merge = merge_labels(s, [_label(created=have["created"])])  # no side_effects, no repetition: as it was
        after = lb.labels(s, "r1")[0]
    assert (merge.same, merge.conflicts) == (1, [])
    assert (after["side_effects"], after["repetition"]) == ("yes", "no")


def test_a_label_without_its_category_is_refused_and_nothing_changes(tmp_path):
    with Store(tmp_path / "h") as s:
        make_runs(s)
        with pytest.raises(StoreError, match="a row of labels has no category"):
            merge_labels(s, [_label(run_id="r2"), _label(category=...)])
        assert lb.labels(s) == []


def test_an_older_adjudication_without_category_or_key_points_merges(tmp_path):
    row = {"run_id": "r1", "verdict": "fail", "reason": "stuck on the menu", "by": "carol", "created": 2000.0}
    with Store(tmp_path / "h") as s:
        make_runs(s)
        merge = merge_adjudications(s, [row])
        got = adj.adjudications(s, "r1")
    assert merge.added == 1 and [(a["verdict"], a["reason"], a["category"] or "") for a in got] == [
        ("fail", "stuck on the menu", "")]

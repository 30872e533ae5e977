"""Site risk rules: how they raise and lower a level with evidence, and reading and writing their file."""
import json

import pytest

from cockpit.core.errors import CockpitError
from cockpit.core.safety import risk
from cockpit.core.safety.risk import SiteRule, load_rules, save_rules
from tests.core.safety.risk_helpers import URL, cls, has, mk


# ---------- site rules ----------
def test_site_rule_raises_with_evidence():
    rule = SiteRule("shop.example.com", "irreversible", text="^apply coupon$", note="coupons are single-use")
    r = cls("Click [1]", mk(text="Apply coupon"), rules=[rule])
    assert r.level == "irreversible"
    assert r.evidence[0] == ("site rule for shop.example.com: coupons are single-use "
                             "(sets irreversible, instead of state-changing)")
    assert r.rule and "shop.example.com" in r.rule and "irreversible" in r.rule


def test_site_rule_lowers_and_heuristic_evidence_stays():
    rule = SiteRule("*.example.com", "state-changing", text="delete draft", action="click",
                    note="drafts can be restored")
    r = cls("Click [1]", mk(text="Delete draft"), rules=[rule])
    assert r.level == "state-changing"
    assert has(r, 'matches "delete"') and has(r, "drafts can be restored")


def test_site_rule_matching():
    b = mk(text="Delete draft")
    def level(*rules, url=URL, action="Click [1]"):
        return cls(action, b, rules=list(rules), url=url).level
    low = dict(level="read-only")
    assert level(SiteRule("other.com", **low)) == "irreversible"
    assert level(SiteRule("*.example.com", **low)) == "read-only"
    assert level(SiteRule("*.example.com", **low), url="https://example.com/") == "read-only"
    assert level(SiteRule("*.example.com", **low), url="https://badexample.com/") == "irreversible"
    assert level(SiteRule("*", **low)) == "read-only"
    assert level(SiteRule("*", url=r"/cart$", **low)) == "irreversible"
    assert level(SiteRule("*", url=r"/CHECKOUT", **low)) == "read-only"
    assert level(SiteRule("*", action="type", **low)) == "irreversible"
    assert level(SiteRule("*", text="publish", **low)) == "irreversible"
    # The last matching rule wins.
    assert level(SiteRule("*", **low), SiteRule("*", level="state-changing")) == "state-changing"
    assert level(SiteRule("*", level="state-changing"), SiteRule("*", **low)) == "read-only"
    # A text condition never matches an action without a target.
    assert cls("Scroll [WINDOW]; down", rules=[SiteRule("*", "irreversible", text=".")]).level == "read-only"


def test_invalid_rule_is_ignored_with_evidence():
    r = cls("Click [1]", mk(text="Save"), rules=[SiteRule("*", "read-only", text="(")])
    assert r.level == "state-changing" and has(r, "site rule 1", "invalid")


# ---------- rule files ----------
def test_rules_round_trip(tmp_path):
    path = tmp_path / "rules.json"
    rules = [SiteRule("shop.example.com", "irreversible", text="apply coupon", note="single-use"),
             SiteRule("*", "read-only", action="hover")]
    save_rules(path, rules)
    assert load_rules(path) == rules
    assert isinstance(json.loads(path.read_text()), list)


def test_missing_rules_file_means_no_rules(tmp_path):
    assert load_rules(tmp_path / "nope.json") == []


def test_default_rules_path_is_in_cockpit_home():
    from cockpit.core import paths
    assert risk.default_rules_path() == paths.home() / "risk_rules.json"


def test_malformed_rules_file(tmp_path):
    path = tmp_path / "rules.json"
    path.write_text('[{"domain": "a.com", "level": "irreversible",}]')
    with pytest.raises(CockpitError) as e:
        load_rules(path)
    msg = str(e.value)
    assert str(path) in msg and "not valid JSON" in msg and "line 1" in msg


def test_rules_file_with_a_bad_level(tmp_path):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps([{"domain": "a.com", "level": "read-only"},
                                {"domain": "shop.example.com", "level": "dangerous"}]))
    with pytest.raises(CockpitError) as e:
        load_rules(path)
    msg = str(e.value)
    assert str(path) in msg and "rule 2" in msg and "shop.example.com" in msg and "'dangerous'" in msg
    assert "irreversible" in msg  # says what is allowed


@pytest.mark.parametrize("entry,words", [
    ({"domain": "a.com", "level": "read-only", "levle": "x"}, ["unknown field", "levle"]),
    ({"level": "read-only"}, ["needs", "'domain'"]),
    ({"domain": "a.com", "level": "read-only", "text": "("}, ["text", "regular expression"]),
    ({"domain": "a.com", "level": "read-only", "action": "explode"}, ["action", "explode"]),
    ("a.com", ["must be an object"]),
])
def test_rules_file_entry_errors(tmp_path, entry, words):
    path = tmp_path / "rules.json"
    path.write_text(json.dumps([entry]))
    with pytest.raises(CockpitError) as e:
        load_rules(path)
    for w in words + ["rule 1", str(path)]:
        assert w in str(e.value), (w, str(e.value))


def test_rules_file_must_be_a_list(tmp_path):
    path = tmp_path / "rules.json"
    path.write_text('{"domain": "a.com"}')
    with pytest.raises(CockpitError, match="JSON list"):
        load_rules(path)


def test_save_refuses_invalid_rules(tmp_path):
    with pytest.raises(CockpitError, match="level"):
        save_rules(tmp_path / "r.json", [SiteRule("a.com", "maybe")])
    assert not (tmp_path / "r.json").exists()

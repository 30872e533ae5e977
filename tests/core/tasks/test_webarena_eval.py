"""WebArena's url_match and program_html: the rules as its harness applies them, and `cockpit run --tasks` on a
WebArena-shaped task file scoring runs on local pages (real Chromium, scripted model)."""
import json
import re

import pytest

from cockpit.core.llm.modelserver import ModelServer
from cockpit.core.review import agreement as ag
from cockpit.core.store import Store
from cockpit.core.store import labels as lb
from cockpit.core.tasks import webarena_eval as WA
from tests.clitools import cockpit
from tests.models import last_user_text, mark_for

# --------------------------------------------------------------------------- url_match


@pytest.mark.parametrize("final, ref, verdict", [
    ("http://shop.test/cart/", "http://shop.test/cart", 1),  # trailing slash dropped
    ("http://shop.test/store/cart?x=1", "http://shop.test/cart", 0),
    ("http://shop.test/cart/items", "http://shop.test/cart", 1),  # GOLD in PRED: a substring will do
    ("http://shop.test/search?q=mug&page=2", "http://shop.test/search?q=mug", 1),
    ("http://shop.test/search?q=cup", "http://shop.test/search?q=mug", 0),
    ("http://shop.test/search", "http://shop.test/search?q=mug", 0),
    ("http://shop.test/b", "http://shop.test/a |OR| http://shop.test/b", 1),
    ("http://shop.test/search?q=cup", "http://shop.test/search?q=mug |OR| http://shop.test/search?q=cup", 1),
])
def test_url_match_as_webarena_scores_it(final, ref, verdict):
    check = WA.url_match(final, {"reference_url": ref, "url_note": "GOLD in PRED"})
    assert check.verdict == verdict, check.detail


def test_a_func_reference_url_is_not_evaluable_and_named():
    check = WA.url_match("http://x.test/", {"reference_url": "func:shopping_get_latest_order_url()"})
    assert check.verdict is None and "shopping_get_latest_order_url()" in check.detail


# --------------------------------------------------------------------------- program_html rules


@pytest.mark.parametrize("selected, required, ok", [
    ("  'Blue Mug' ", {"exact_match": "blue mug"}, True),
    ("Blue mug, Red mug", {"exact_match": "blue mug"}, False),
    ("Mugs &amp; cups", {"must_include": ["mugs & cups"]}, True),  # entities unescaped
    ("Blue mug", {"must_include": ["red mug |OR| blue mug"]}, True),
    ("Blue mug", {"must_include": ["blue", "red"]}, False),
    ("Blue mug", {"must_exclude": ["red mug"]}, True),
    ("Blue mug, Red mug", {"must_exclude": ["red mug"]}, False),
])
def test_required_contents(selected, required, ok):
    assert WA.content_ok(selected, required)[0] is ok


def test_func_locators_and_urls_are_named_never_guessed():
    ev = {"program_html": [{"url": "last", "locator": "func:get_query_text(__page__, '.x')",
                            "required_contents": {"must_include": ["a"]}}]}
    assert WA.targets(ev) == ([], "not evaluable here: the target locator calls WebArena's get_query_text()")
    ev = {"program_html": [{"url": "func:reddit_get_post_url('__last_url__')", "locator": "",
                            "required_contents": {"must_include": ["a"]}}]}
    assert "reddit_get_post_url()" in WA.targets(ev)[1]


# --------------------------------------------------------------------------- end to end


def task(task_id, program_html, types=("url_match", "program_html")):
    return {"sites": ["shopping"], "task_id": task_id, "require_login": False, "storage_state": None,
            "start_url": "__SHOPPING__/wa_shop.html", "geolocation": None,
            "intent_template": "Add the blue mug to the cart and open the cart", "instantiation_dict": {},
            "intent": "Add the blue mug to the cart and open the cart", "require_reset": False,
            "eval": {"eval_types": list(types), "reference_answers": None,
                     "reference_url": "__SHOPPING__/wa_cart.html?view=full |OR| __SHOPPING__/checkout",
                     "program_html": program_html, "url_note": "GOLD in PRED"}}


def shopper(body):
    text = last_user_text(body)
    if "The page is 'WA Shop'" in text:
        if "Added Blue mug" in text:
            return f"Thought: in the cart; open it.\nAction: Click [{mark_for(body, 'Open cart')}]"
        return f"Thought: add it.\nAction: Click [{mark_for(body, 'Add Blue mug')}]"
    return "Thought: the cart is open.\nAction: ANSWER; done"


def test_cockpit_run_scores_webarena_state_checks_on_the_page_the_run_left(site, tmp_path):
    in_cart = {"url": "last", "locator": "document.querySelector('#items').outerText",
               "required_contents": {"must_include": ["Blue mug"], "must_exclude": ["Red mug"]}}
    counted = {"url": "__SHOPPING__/wa_cart.html", "locator": "lambda:() => document.querySelector('#total').dataset.n",
               "prep_actions": ["document.querySelector('#total').dataset.n = "
                                "String(document.querySelectorAll('#items li').length)"],
               "required_contents": {"exact_match": "1"}}
    red = {"url": "last", "locator": "document.querySelector('#items').outerText",
           "required_contents": {"must_include": ["Red mug"]}}
    api = {"url": "last", "locator": "func:shopping_get_sku_latest_review_author('B0001')",
           "required_contents": {"must_include": ["Ada"]}}
    page = {"url": "__SHOPPING__/wa_shop.html", "locator": "", "required_contents": {"must_include": ["mugs & cups"]}}
    tasks = tmp_path / "test.raw.json"
    tasks.write_text(json.dumps([task(1, [in_cart, counted, page]), task(2, [api], ["program_html"]),
                                 task(3, [red], ["program_html"])]))
    home = tmp_path / "home"
    with ModelServer(shopper) as srv:
        r = cockpit(home, "run", "--tasks", str(tasks), "--site", f"shopping={site.url('').rstrip('/')}",
                    "--base-url", srv.base_url, "--model", "m", timeout=300)
    assert r.returncode == 0, r.stderr
    with Store(home) as store:
        runs = {r["task_id"]: r["id"] for r in store.runs()}
        got = {(tid, v["judge"]): (v["verdict"], v["reply"])
               for tid, rid in runs.items() for v in lb.verdicts(store, rid)}
        assert all(store.run(rid)["status"] == "answered" for rid in runs.values())
        one = next(k for k in runs if k.endswith("1"))
        two = next(k for k in runs if k.endswith("2"))
        three = next(k for k in runs if k.endswith("3"))
        assert got[(one, "webarena:url_match")][0] == 1
        verdict, reply = got[(one, "webarena:program_html")]
        assert verdict == 1 and reply.count(": met") == 3, reply
        verdict, reply = got[(two, "webarena:program_html")]
        assert verdict is None and "shopping_get_sku_latest_review_author()" in reply
        assert (two, "webarena:url_match") not in got  # not one of task 2's eval_types
        verdict, reply = got[(three, "webarena:program_html")]
        assert verdict == 0 and "'red mug' not found" in reply
        # compared with the humans like any judge
        for tid in (one, three):
            lb.set_label(store, runs[tid], "ada", "success" if tid == one else "fail")
        rows = {(r["judge"], r["prompt_version"]): r for r in ag.judge_agreement(store)}
    row = rows[("webarena:program_html", WA.VERSION)]
    assert (row["n"], row["agreement"], row["undecided"]) == (2, 1.0, 0)
    shown = cockpit(home, "agreement").stdout
    assert re.search(r"webarena:program_html\s+all\s+webarena-eval-1\s+2\s+100\.0%", shown), shown


def test_a_browser_error_while_evaluating_leaves_the_run_answered(site, agent_for, store, browser, monkeypatch):
    from selenium.common.exceptions import WebDriverException

    from cockpit.core.agent.start import Fresh
    down = "http://127.0.0.1:9/orders"
    real_goto = browser.goto

    def goto(url):
        if url == down:
            raise WebDriverException("unknown error: net::ERR_CONNECTION_REFUSED")
        return real_goto(url)
    monkeypatch.setattr(browser, "goto", goto)
    ev = {"eval_types": ["program_html"], "program_html": [
        {"url": down, "locator": "", "required_contents": {"must_include": ["order"]}}]}
    with ModelServer(lambda b: "Thought: done.\nAction: ANSWER; done") as srv:
        result = agent_for(srv).run(Fresh("Check the orders", site.url("wa_shop.html"), task_extra={"eval": ev}))
    assert (result.status, result.answer) == ("answered", "done")
    (v,) = lb.verdicts(store, result.run_id)
    assert v["judge"] == "webarena:program_html" and v["verdict"] is None
    assert "not evaluated: the browser failed" in v["reply"] and "ERR_CONNECTION_REFUSED" in v["reply"]

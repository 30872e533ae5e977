"""Text typed into secret fields (a password, a card number) is masked everywhere Cockpit writes or shows it:
the store, the web recording, exports and bundles, events and the window."""
from __future__ import annotations

import gzip
import json
import zipfile
from pathlib import Path

import pytest

from cockpit.core.agent.start import Fresh
from cockpit.core.llm.modelserver import ModelServer
from tests.models import model_client
from tests.secret_scan import (
    CARD,
    EXPORT_FORMATS,
    KEY,
    PASSWORD,
    TRAINING_EXPORTS,
    count,
    db_hits,
    mark_of,
    needles,
    parquet_text,
    prompt_text,
    scan_files,
)


def login_model():
    """Types the password, then the card number (both named in its thoughts too), then answers."""
    steps = iter([
        lambda b: (f"Thought: the password is {PASSWORD}, so I type {PASSWORD} into the password field.\n"
                   f"Action: Type [{mark_of(b, 'type=password')}]; {PASSWORD}"),
        lambda b: (f"Thought: signed in with {PASSWORD}; now the card {CARD}.\n"
                   f"Action: Type [{mark_of(b, 'Card number')}]; {CARD}"),
        lambda b: "Thought: both are typed.\nAction: ANSWER; signed in",
    ])
    return lambda body: next(steps)(body)


@pytest.mark.fault("secrets")
def test_text_typed_into_secret_fields_is_masked_everywhere(site, browser, tmp_path, qtbot, monkeypatch,
                                                            record_property):
    from cockpit.cli import main as cockpit_main
    from cockpit.core.agent.approval import PolicyApprover
    from cockpit.core.agent.loop import Agent, AgentConfig
    from cockpit.core.store import Store
    from cockpit.ui.live.step_details import StepDetails
    from cockpit.ui.live.step_log import StepLogPanel

    home = tmp_path / "home"
    events = []
    log = StepLogPanel()
    qtbot.addWidget(log)

    def listen(e):
        events.append(e)

    with ModelServer(login_model(), require_key=KEY) as srv, Store(home) as store, \
            model_client(srv, api_key=KEY) as client:
        # Every action goes through the approval gate, so the decisions table and its events are covered too.
        agent = Agent(browser, client, store, config=AgentConfig(wait_seconds=0.2, approval_policy="every"),
                      approver=PolicyApprover(True), listener=listen)
        result = agent.run(Fresh("Sign in as alice and enter the card", site.url("secret_login.html")))
        assert result.status == "answered", result
        typed = browser.driver.execute_script(
            "return [document.querySelector('[name=password]').value, document.querySelector('[name=card]').value]")
        assert typed == [PASSWORD, CARD]  # the secrets did reach the page
        run_id = result.run_id
        steps = store.steps(run_id)
        run = store.run(run_id)
        files_while_open = scan_files([home], needles(PASSWORD) + needles(CARD))

        # the live step log and the step details, fed as the window feeds them
        for e in events:
            log.add_event(e)
        details = StepDetails()
        qtbot.addWidget(details)
        widget_texts = []
        for s in steps:
            details.show_step(store, run, s)
            details.setCurrentWidget(details.messages)
            widget_texts += [details.summary.toPlainText(), details.messages.toHtml(), details.raw.toPlainText()]
        items = [log.topLevelItem(i) for i in range(log.topLevelItemCount())]
        items += [it.child(j) for it in items for j in range(it.childCount())]
        widget_texts += [t for it in items for c in range(log.columnCount()) for t in (it.text(c), it.toolTip(c))]

    # the record shows what happened, without the text
    pw_mark = mark_of(srv.requests[0], "type=password")
    card_mark = mark_of(srv.requests[1], "Card number")
    assert [s["action"] for s in steps] == [f"Type [{pw_mark}]; (secret)", f"Type [{card_mark}]; (secret)",
                                            "ANSWER; signed in"]
    assert "(secret)" in steps[0]["thought"] and "(secret)" in steps[1]["reply"]
    assert any(it.text(1) == f"Type [{pw_mark}]; (secret)" for it in items)

    # the model is told it typed a secret, and its history no longer holds it
    assert len(srv.requests) == 3 and srv.rejected == 0
    assert f"You typed a secret into the password field [{pw_mark}]" in prompt_text(srv.requests[1])
    assert f"You typed a secret into the secret field [{card_mark}]" in prompt_text(srv.requests[2])
    assert f"Type [{pw_mark}]; (secret)" in prompt_text(srv.requests[2])  # its own earlier reply, masked

    monkeypatch.setenv("COCKPIT_HOME", str(home))
    out = tmp_path / "exports"
    for fmt in EXPORT_FORMATS:
        dest = out / (f"{fmt}.out" if fmt in ("labels-jsonl", "labels-csv", "coco") else fmt)
        assert cockpit_main(["export", run_id, "--format", fmt, "--out", str(dest)]) == 0
    assert list(out.rglob("*.gif")) and list(out.rglob("interact_messages.json"))
    from cockpit.core.training.export import ExportOptions, export
    with Store(home) as store:  # every kind and layout, every step that ran (the two typing steps left out)
        for fmt, layout in TRAINING_EXPORTS:
            done = export(store, ExportOptions(fmt, layout, keep="all"), out / f"train-{fmt}-{layout}")
            assert done.run_ids == [run_id]
        sft = export(store, ExportOptions("sft", "openai", keep="all"), out / "train-sft-openai")
    assert sft.rows == 1 and sft.tally.skipped["text typed into a secret field is not stored"] == 2
    assert count(parquet_text(out / "train-sft-hf" / "data" / "train-00000-of-00001.parquet"), needles("Sign in"))
    for fmt in ("har", "bundle"):  # the web recording, credentials and all, as far as it goes out
        dest = out / f"{fmt}-with-credentials" / ("run.zip" if fmt == "bundle" else "")
        assert cockpit_main(["export", run_id, "--format", fmt, "--with-credentials", "--out", str(dest)]) == 0
    # the web recording holds the page's form post and JSON body, each with the fields as "(secret)"
    har = json.loads(next((out / "har").glob("*.har")).read_text())["log"]["entries"]
    posts = {e["request"]["url"].rsplit("=", 1)[1]: e["request"]["postData"]["text"] for e in har
             if e["request"]["method"] == "POST"}
    assert set(posts) == {"form", "json"}, posts
    assert "password=%28secret%29" in posts["form"] or "password=(secret)" in posts["form"]
    assert json.loads(posts["json"])["password"] == "(secret)" and json.loads(posts["json"])["user"] == "alice"
    with zipfile.ZipFile(next((out / "bundle-with-credentials").glob("*.zip"))) as z:
        bundle = {n: z.read(n) for n in z.namelist()}
    assert any(n.endswith("web/credentials.jsonl") for n in bundle)

    leaks = {}
    for name, secret in (("password", PASSWORD), ("card", CARD)):
        find = needles(secret)
        where = {
            "files": {**files_while_open, **scan_files([home, out], find)},
            "bundle with credentials": {n: c for n, d in bundle.items() if (c := count(
                gzip.decompress(d) if n.endswith(".gz") else d, find))},
            "database": db_hits(home / "cockpit.db", find),
            "marks.json": {s["marks_file"]: n for s in steps if (n := count(Path(home, s["marks_file"]).read_bytes(),
                                                                             find))},
            "stored requests": {s["step"]: n for s in steps if (n := count(json.dumps(s["request"]), find))},
            "sent to the model": {i: n for i, b in enumerate(srv.requests) if (n := count(json.dumps(b), find))},
            "events": {repr(e)[:80]: n for e in events if (n := count(repr(e), find))},
            "widgets": {t[:80]: n for t in widget_texts if (n := count(t, find))},
        }
        leaks[name] = {k: v for k, v in where.items() if v}
    record_property("secret_hits", sum(sum(v.values()) for w in leaks.values() for v in w.values()))
    assert leaks == {"password": {}, "card": {}}

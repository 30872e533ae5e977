"""Settling waits for what a person waits for, and an observation is of one moment (issue #16).

Real headless Chromium on the fixture pages settle_*.html: what the agent's observation holds after
the page kept working past its load (a debounce timer, a web worker, an idle callback and a dynamic
import, a transition), and what a settle that hit its cap says was still pending.
"""
from contextlib import contextmanager

from cockpit.core.actions import parse_action
from cockpit.core.agent.execute import Executor
from cockpit.core.page.observation import MAX_RETRIES, observe
from tests.clitools import cockpit
from tests.core.marktools import mark_id, texts


@contextmanager
def browser_config(browser, **values):
    before = {k: getattr(browser.config, k) for k in values}
    for k, v in values.items():
        setattr(browser.config, k, v)
    try:
        yield
    finally:
        for k, v in before.items():
            setattr(browser.config, k, v)


def test_debounced_autocomplete_suggestions_are_marked_after_typing(page, browser):
    obs = observe(page("settle_autocomplete.html"))
    out = Executor(browser).run(parse_action(f"Type [{mark_id(obs, 'City')}]; aur"), obs.marks)
    assert out.settle["settled"], out.settle
    seen = texts(observe(browser))
    assert {"Aurora", "Aurich", "Auray"} <= set(seen), seen
    assert "Berlin" not in seen


def test_worker_built_results_are_marked(page, browser):
    seen = texts(observe(page("settle_worker.html")))
    assert "Settling a page" in seen and "Settle cap and pending work" in seen, seen


def test_render_after_idle_callback_and_dynamic_import(page, browser):
    seen = texts(observe(page("settle_idle.html")))
    assert "Open report" in seen and "Share report" in seen, seen


def test_drawer_links_after_its_transition_are_marked(page, browser):
    obs = observe(page("settle_pulse.html"))
    out = Executor(browser).run(parse_action(f"Click [{mark_id(obs, 'Open menu')}]"), obs.marks)
    assert out.settle["settled"], out.settle
    seen = texts(observe(browser))
    assert "Profile" in seen and "Settings" in seen, seen


def test_infinite_decorative_animation_does_not_hold_the_page(page, browser):
    page("settle_pulse.html")
    result = browser.settle()
    assert result["settled"] and result["pending"] == [], result


def test_infinite_spinner_stops_at_the_cap_and_says_what_was_pending(page, browser):
    with browser_config(browser, settle_signal_cap_ms=600, settle_cap_ms=1500):
        page("settle_spinner.html")
        result = browser.settle()
    assert not result["settled"], result
    assert any(p.startswith("spinner div.spinner") for p in result["pending"]), result
    assert "text 'Loading…'" in result["pending"], result


def test_cap_reports_pending_work(page, browser):
    """A request slower than the cap: the result names it."""
    page("settle.html")
    browser.js("fetch('/__delay/3000')")
    with browser_config(browser, settle_cap_ms=500):
        result = browser.settle()
    assert not result["settled"] and "fetch 1" in result["pending"], result


def test_static_page_settles_with_nothing_pending(page, browser):
    page("settle_static.html")
    result = browser.settle()
    assert result["settled"] and result["pending"] == [], result


def test_observation_marks_again_when_the_page_changed_meanwhile(page, browser):
    obs = observe(page("settle_static.html"))
    assert obs.stats["retries"] == 0 and not obs.stats["changing"]
    obs = observe(page("settle_ticker.html"))  # changes every 4 ms: every try meets a change
    assert obs.stats["retries"] == MAX_RETRIES and obs.stats["changing"]
    assert "Stop" in texts(obs)


def test_the_step_record_says_how_the_page_settled(site, browser, tmp_path):
    """Through the agent loop: the suggestion reaches the model's prompt, and each step's record keeps
    its settle result (what was pending when it did not settle) and the observation's retries."""
    from cockpit.core.agent.loop import Agent, AgentConfig
    from cockpit.core.agent.start import Fresh
    from cockpit.core.llm.modelserver import ModelServer
    from cockpit.core.store import Store
    from tests.models import by_page, mark_for, model_client

    def autocomplete(body):
        try:
            return f"Thought: pick it.\nAction: Click [{mark_for(body, 'Aurora')}]"
        except AssertionError:  # no suggestion (yet): type
            return f"Thought: type.\nAction: Type [{mark_for(body, 'City')}]; aur"

    def picked(body):
        return "Thought: done.\nAction: ANSWER; picked"

    responder = by_page({"autocomplete": lambda b: picked(b) if "Thought: pick it" in str(b["messages"])
                         else autocomplete(b)})
    with browser_config(browser, settle_signal_cap_ms=500), Store(tmp_path / "home") as store, \
            ModelServer(responder) as srv:
        client = model_client(srv, model="test-model", api_key="test-key", timeout=20)
        try:
            agent = Agent(browser, client, store, config=AgentConfig(wait_seconds=0.2, max_steps=4))
            result = agent.run(Fresh("Pick the city Aurora", site.url("settle_autocomplete.html")))
            typed = store.steps(result.run_id)
            value = browser.js("return document.getElementById('q').value")
            browser.goto(site.url("settle_spinner.html"))
            obs = observe(browser)
            out = Executor(browser).run(parse_action(f"Click [{mark_id(obs, 'Cancel')}]"), obs.marks)
        finally:
            client.close()
    assert [s["action"] for s in typed] == ["Type [1]; aur", "Click [2]", "ANSWER; picked"], \
        [(s["status"], s["error"], s["reply"]) for s in typed]
    assert value == "Aurora"  # the suggestion the model saw was there to click
    timings = typed[0]["timings"]
    assert timings["settle"]["settled"] and timings["settle"]["pending"] == [], timings
    assert timings["observe"] == {"retries": 0, "changing": False}
    assert not out.settle["settled"] and "text 'Loading…'" in out.settle["pending"], out.settle
    # a user reading the run later is told what the page was still doing when Cockpit stopped waiting
    with Store(tmp_path / "home") as store:
        store.update_step(result.run_id, 2, timings={"settle": out.settle, "observe": {"retries": 2, "changing": True}})
    shown = cockpit(tmp_path / "home", "runs", result.run_id)
    assert shown.returncode == 0, shown.stderr
    page_lines = [line for line in shown.stdout.splitlines() if line.strip().startswith("page:")]
    assert len(page_lines) == 1 and "still pending:" in page_lines[0] and "text 'Loading…'" in page_lines[0] \
        and "marked again 2 times" in page_lines[0] and "still changing" in page_lines[0], shown.stdout


def test_the_watched_builtins_still_work_for_the_page(page, browser):
    """Timers, idle callbacks, workers and WebSockets behave for the page as without the instrument script."""
    page("settle_static.html")
    got = browser.js_async("""
        const done = arguments[arguments.length - 1], out = {};
        document.querySelector('button').click();  // an action: short timers are watched from here on
        const cleared = setTimeout(() => { out.cleared_ran = true; }, 10);
        clearTimeout(cleared);
        setTimeout((a, b) => { out.args = a + b; }, 5, 2, 3);
        requestIdleCallback((deadline) => { out.idle = typeof deadline.timeRemaining(); });
        const ws = new WebSocket('ws://127.0.0.1:9/');
        out.ws = [ws instanceof WebSocket, WebSocket.OPEN, typeof ws.send];
        const w = new Worker('settle_worker.js');
        out.worker = w instanceof Worker;
        w.onmessage = (e) => { out.reply = e.data.length; w.terminate(); ws.close(); setTimeout(() => done(out), 30); };
        w.postMessage({});
    """)
    assert got == {"args": 5, "idle": "number", "ws": [True, 1, "function"], "worker": True, "reply": 2}, got
    assert browser.settle()["pending"] == []


@contextmanager
def slow_websocket_server(delay: float = 0.3):
    """A WebSocket server on 127.0.0.1 answering each text message after `delay` seconds: its ws:// URL."""
    import socket
    import threading
    import time

    from wsproto import ConnectionType, WSConnection
    from wsproto.events import AcceptConnection, CloseConnection, Request, TextMessage

    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve(sock):
        ws = WSConnection(ConnectionType.SERVER)
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            if not data:
                return
            ws.receive_data(data)
            for event in ws.events():
                if isinstance(event, Request):
                    sock.sendall(ws.send(AcceptConnection()))
                elif isinstance(event, TextMessage):
                    time.sleep(delay)
                    sock.sendall(ws.send(TextMessage(data="Answer: 42")))
                elif isinstance(event, CloseConnection):
                    sock.sendall(ws.send(event.response()))
                    return

    def accept():
        while not stop.is_set():
            try:
                sock, _ = listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            threading.Thread(target=serve, args=(sock,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"ws://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        stop.set()
        thread.join(2)
        listener.close()


def test_websocket_answer_is_marked_after_the_click(browser, site):
    with slow_websocket_server() as ws_url:
        browser.goto(site.url("settle_ws.html") + "?ws=" + ws_url)
        obs = observe(browser)
        out = Executor(browser).run(parse_action(f"Click [{mark_id(obs, 'Ask')}]"), obs.marks)
        seen = texts(observe(browser))
    assert out.settle["settled"], out.settle
    assert "Answer: 42" in seen, seen


def test_a_view_imported_on_demand_over_a_slow_network_is_waited_for(page, browser):
    """A dynamic import() is syntax, not a function the page's instrumentation can wrap: with its request in
    flight for 700 ms the page had nothing pending, and the observation missed the view it renders."""
    obs = observe(page("settle_import.html"))
    out = Executor(browser).run(parse_action(f"Click [{mark_id(obs, 'Show report tools')}]"), obs.marks)
    assert out.settle["settled"], out.settle
    assert out.settle["waited_ms"] >= 650, out.settle
    seen = texts(observe(browser))
    assert "Open report" in seen and "Share report" in seen, seen


def test_a_script_load_still_in_flight_at_the_cap_is_named(page, browser):
    with browser_config(browser, settle_cap_ms=500):  # settle.js itself needs ~200 ms; the import 700 ms
        obs = observe(page("settle_import.html"))
        out = Executor(browser).run(parse_action(f"Click [{mark_id(obs, 'Show report tools')}]"), obs.marks)
    assert not out.settle["settled"], out.settle
    assert any(p.startswith("script ") and p.endswith("settle_idle_module.js") for p in out.settle["pending"]), \
        out.settle

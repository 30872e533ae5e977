"""Executing actions by mark id in real Chromium, and what the user sees change."""
import time

import pytest

from cockpit.core.actions import parse_action
from cockpit.core.agent.execute import Executor
from cockpit.core.errors import ActionError
from cockpit.core.page.observation import observe
from cockpit.core.safety.navguard import normalize_url
from tests.conftest import PDF_PHRASE
from tests.core.marktools import mark_id


def act(browser, obs, action_text, **kw):
    return Executor(browser, **kw).run(parse_action(action_text), obs.marks)


def out_text(browser, frame=None):
    return browser.js("return document.getElementById('out') ? document.getElementById('out').textContent : null")


def test_click_a_listener_only_span(page, browser):
    obs = observe(page("clickables.html"))
    act(browser, obs, f"Click [{mark_id(obs, 'Listener span')}]")
    assert out_text(browser) == "listener span clicked"


def test_click_link_navigates_and_reports_new_url(page, browser):
    obs = observe(page("nested.html"))
    outcome = act(browser, obs, f"Click [{mark_id(obs, 'Card link')}]")
    assert outcome.url_changed and outcome.url_after.endswith("/target.html")
    assert "the page is now" in outcome.message
    assert browser.title == "target page"


def test_type_clears_types_and_presses_enter(page, browser):
    obs = observe(page("forms.html"))
    outcome = act(browser, obs, f"Type [{mark_id(obs, 'Search products')}]; red shoes")
    # Enter submitted the GET form: the old text was cleared first.
    assert "q=red+shoes" in outcome.url_after
    assert "old" not in outcome.url_after


def test_type_into_a_button_is_refused_with_a_model_fit_message(page, browser):
    obs = observe(page("forms.html"))
    with pytest.raises(ActionError, match=r"element \[\d+\] <button> \"Not a field\" is not a text field"):
        act(browser, obs, f"Type [{mark_id(obs, 'Not a field')}]; hello")


def test_unknown_mark_number_is_refused(page, browser):
    obs = observe(page("grid.html"))
    with pytest.raises(ActionError, match=r"no element \[99\].*1 to 5"):
        act(browser, obs, "Click [99]")


def test_typing_a_password_is_not_echoed(page, browser):
    obs = observe(page("forms.html"))
    pw = [m for m in obs.marks if m.type == "password"][0]
    outcome = act(browser, obs, f"Type [{pw.id}]; topsecret")
    assert "topsecret" not in outcome.message and "(secret)" in outcome.message


def test_shadow_dom_type_and_click(page, browser):
    obs = observe(page("shadow.html"))
    browser.js("document.querySelector('my-widget').shadowRoot.querySelector('input')"
               ".addEventListener('keydown', e => { if (e.key === 'Enter') e.preventDefault(); })")
    act(browser, obs, f"Type [{mark_id(obs, 'Shadow input')}]; abc")
    act(browser, obs, f"Click [{mark_id(obs, 'Shadow button')}]")
    assert out_text(browser) == "shadow clicked: abc"


def test_click_inside_same_origin_iframe(page, browser):
    obs = observe(page("iframe.html"))
    act(browser, obs, f"Click [{mark_id(obs, 'Frame button')}]")
    got = browser.js("return document.getElementById('f').contentDocument.getElementById('o').textContent")
    assert got == "frame clicked"


def test_clicking_something_covered_by_a_modal_is_refused(page, browser):
    page("modal.html")
    # Pretend the model saw the page before the modal: the mark exists, but is covered now.
    browser.js("document.getElementById('veil').style.display='none'; document.getElementById('dlg').style.display='none'")
    obs = observe(browser)
    behind = mark_id(obs, "Behind one")
    browser.js("document.getElementById('veil').style.display='block'")
    with pytest.raises(ActionError, match="covered by"):
        act(browser, obs, f"Click [{behind}]")


def test_scroll_window_and_inside_element(page, browser):
    obs = observe(page("long.html"))
    assert "Row 30" not in [m.text for m in obs.marks]
    out = act(browser, obs, "Scroll [WINDOW]; down")
    assert browser.js("return window.scrollY") == 512  # 2/3 of 768
    assert "scrolled the window down by 512" in out.message
    act(browser, observe(browser), "Scroll [WINDOW]; up")
    assert browser.js("return window.scrollY") == 0
    obs = observe(browser)
    item = mark_id(obs, "open 1")  # the list is scrolled by naming something in it
    out = act(browser, obs, f"Scroll [{item}]; down")
    assert browser.js("return document.getElementById('box').scrollTop") > 50
    assert browser.js("return window.scrollY") == 0
    assert f"scrolled the area holding element [{item}] down" in out.message
    after = [m.text for m in observe(browser).marks]
    assert "open 8" in after  # items further down the box are now marked
    obs = observe(browser)
    notes = [m for m in obs.marks if m.scrollable][0]  # a text pane is marked and scrolls itself
    out = act(browser, obs, f"Scroll [{notes.id}]; down")
    assert browser.js("return document.getElementById('notes').scrollTop") > 20
    assert f"scrolled element [{notes.id}] down" in out.message


def test_scroll_window_scrolls_an_app_whose_main_scrolls(page, browser):
    obs = observe(page("app_shell.html"))
    out = act(browser, obs, "Scroll [WINDOW]; down")
    assert browser.js("return document.getElementById('main').scrollTop") > 300
    assert "scrolled the window down" in out.message
    assert "Task 12" in [m.text for m in observe(browser).marks]


def test_scroll_reports_the_end(page, browser):
    obs = observe(page("grid.html"))
    out = act(browser, obs, "Scroll [WINDOW]; down")
    assert "cannot scroll further down" in out.message


def test_select_an_option(page, browser):
    obs = observe(page("selects.html"))
    combo = [m for m in obs.marks if m.role == "combobox"][0]
    act(browser, obs, f"Select [{combo.id}]; Large")
    assert browser.js("return document.getElementById('o').textContent") == "size=l"
    with pytest.raises(ActionError, match='no option "Huge".*"Small", "Medium", "Large"'):
        act(browser, obs, f"Select [{combo.id}]; Huge")


def test_new_tab_links_and_window_open_stay_in_one_tab(page, browser, site):
    obs = observe(page("tabs.html"))
    out = act(browser, obs, f"Click [{mark_id(obs, 'Opens new tab')}]")
    assert len(browser.driver.window_handles) == 1
    assert out.url_after == site.url("target.html")
    obs = observe(page("tabs.html"))
    out = act(browser, obs, f"Click [{mark_id(obs, 'Window open')}]")
    assert len(browser.driver.window_handles) == 1
    assert out.url_after.endswith("target.html?via=open")


def test_stray_window_is_closed_and_folded_back(page, browser, site):
    page("grid.html")
    browser.driver.switch_to.new_window("tab")
    browser.driver.get(site.url("target.html"))
    moved = browser.ensure_single_tab()
    assert moved == site.url("target.html")
    assert len(browser.driver.window_handles) == 1 and browser.title == "target page"


def test_pdf_link_text_reaches_the_outcome(page, browser):
    obs = observe(page("tabs.html"))
    out = act(browser, obs, f"Click [{mark_id(obs, 'Annual report (PDF)')}]")
    assert PDF_PHRASE in out.pdf_text
    assert "downloaded the PDF doc.pdf" in out.message


def test_settle_waits_for_late_content_without_fixed_sleeps(page, browser):
    obs = observe(page("settle.html"))
    t = time.perf_counter()
    out = act(browser, obs, f"Click [{mark_id(obs, 'Load more')}]")
    took = time.perf_counter() - t
    assert out.settle["settled"]
    assert "Loaded late" in [m.text for m in observe(browser).marks]
    assert took < 3.0  # the 400 ms request, not the 4 s cap


def test_goback_wait_google_goto_press_hover(page, browser, site):
    obs = observe(page("nested.html"))
    act(browser, obs, f"Click [{mark_id(obs, 'Card link')}]")
    out = act(browser, observe(browser), "GoBack")
    assert out.url_after.endswith("nested.html")
    out = act(browser, observe(browser), "Wait", wait_seconds=0.05)
    assert out.message == "waited 0.05 seconds"
    browser.config.search_url = site.url("target.html")
    assert act(browser, observe(browser), "Google").url_after == site.url("target.html")
    out = act(browser, observe(browser), f"Goto [{site.url('grid.html')}]")
    assert browser.title == "grid"
    out = act(browser, observe(browser), "Press [Ctrl+A]")
    assert out.message == "pressed Ctrl+A"
    obs = observe(browser)
    assert act(browser, obs, "Hover [1]").message.startswith("hovered over [1]")
    with pytest.raises(ActionError, match="only opens http and https"):
        act(browser, obs, "Goto [javascript:alert(1)]")


def test_answer_executes_nothing(page, browser):
    obs = observe(page("grid.html"))
    out = act(browser, obs, "ANSWER; 42 dollars")
    assert out.answer == "42 dollars" and not out.url_changed


@pytest.mark.parametrize("text,url", [
    ("example.com/x", "https://example.com/x"),
    ("localhost:8000/a", "https://localhost:8000/a"),
    ("http://127.0.0.1:9/", "http://127.0.0.1:9/"),
])
def test_normalize_url(text, url):
    assert normalize_url(text) == url


@pytest.mark.parametrize("bad", ["file:///etc/passwd", "chrome://settings", "data:text/html,hi"])
def test_normalize_url_refuses_non_web_schemes(bad):
    with pytest.raises(ActionError):
        normalize_url(bad)


def test_link_inside_label_and_fieldset_disabled(page):
    obs = observe(page("review.html"))
    t = [m.text for m in obs.marks]
    assert "Terms" in t  # "I agree to the Terms": the link is its own mark
    assert "Disabled by fieldset" not in t
    box = [m for m in obs.marks if m.type == "checkbox"][0]
    assert box.value == "unchecked"


def test_confirm_dialog_is_read_out_and_dismissed(page, browser):
    obs = observe(page("review.html"))
    out = act(browser, obs, f"Click [{mark_id(obs, 'Delete')}]")
    assert 'the page showed a dialog: "Delete everything?" (dismissed)' in out.message
    assert out_text(browser) == "cancelled"
    assert browser.open_dialog() is None


def test_click_in_iframe_with_padding(page, browser):
    obs = observe(page("review.html"))
    act(browser, obs, f"Click [{mark_id(obs, 'Padded frame button')}]")
    assert browser.js("return document.getElementById('pf').contentDocument.querySelector('button').textContent") == "pad clicked"


def test_a_post_the_site_refuses_is_said_once_from_the_observation_and_settle_scripts(page, browser):
    """#38: the page before comes from the observation (``Observation.document``), the page after from the
    settle script: the click on a form the site answers with 404 says so; a Wait on that error page does not."""
    obs = observe(page("refused_post.html"))
    out = Executor(browser).run(parse_action(f"Click [{mark_id(obs, 'Delete all notes')}]"), obs.marks,
                                document=obs.document)
    assert out.message.endswith("; the site answered HTTP 404 (Not Found)")
    obs = observe(browser)
    out = Executor(browser, wait_seconds=0).run(parse_action("Wait"), obs.marks, document=obs.document)
    assert out.message == "waited 0 seconds"

"""Marks for what a person can click (issue #16): delegated rows, real controls inside clickable
wrappers, custom checkboxes, icon-only buttons, a select's options, and flat large pages."""
import json

from cockpit.core.actions import parse_action
from cockpit.core.agent.execute import Executor
from cockpit.core.browser.session import SOM_GLOBAL
from cockpit.core.page.observation import observe
from testkit import pagegen


def marks_with(obs, text):
    return [m for m in obs.marks if text in m.text or text in m.aria_label]


def one(obs, text):
    hits = marks_with(obs, text)
    assert len(hits) == 1, f"{len(hits)} marks with {text!r}: {[m.text for m in obs.marks]}"
    return hits[0]


def click(browser, obs, mark):
    Executor(browser).run(parse_action(f"Click [{mark.id}]"), obs.marks)
    return browser.js("return document.getElementById('out').textContent")


def test_rows_of_a_delegated_listener_are_marked_one_by_one(page, browser):
    obs = observe(page("delegated.html"))
    # Each email row is its own mark; no mark holds two rows' text (the container).
    for who in ("Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra"):
        one(obs, who)
    assert not marks_with(obs, "Ada Lovelace")[0].text.count("Alan")
    for order in ("Blue kettle", "Green teapot", "Red mug"):
        one(obs, order)
    # Highlighted code and paragraphs under a listener are text, not items.
    assert not [m for m in obs.marks if m.text in ("11", "22", "33") or m.tag == "p"], obs.element_text
    assert one(obs, "with a link").tag == "a"
    # A listener on <body> does not make its repeated sections clickable.
    assert not marks_with(obs, "About us") and not marks_with(obs, "Opening hours")
    assert click(browser, obs, one(obs, "Grace Hopper")) == "opened mail 3"
    obs = observe(browser)
    assert click(browser, obs, one(obs, "Green teapot")) == "opened order A-101"


def test_under_a_framework_root_listener_pointer_rows_are_marked_and_plain_blocks_are_not(page, browser):
    obs = observe(page("app_root.html"))
    for title in ("Weekly digest", "Outage report", "Hiring"):
        one(obs, title)
    assert not marks_with(obs, "Static note"), obs.element_text  # repeated, but nothing says clickable
    assert click(browser, obs, one(obs, "Outage report")) == "opened post 8"


def test_each_result_link_of_a_results_list_is_marked(page):
    obs = observe(page("delegated.html"))
    for title in ("Installing the package", "Configuration reference", "Changelog"):
        assert one(obs, title).tag == "a"
    assert not [m for m in obs.marks if "Installing" in m.text and "Changelog" in m.text]


def test_an_opened_custom_listbox_shows_its_options(page, browser):
    obs = observe(page("delegated.html"))
    assert not marks_with(obs, "Olive")  # closed
    click(browser, obs, one(obs, "Choose a colour"))
    obs = observe(browser)
    for colour in ("Crimson", "Olive", "Teal"):  # one mark each, not the menu holding all three
        assert one(obs, colour).text == colour
    assert click(browser, obs, one(obs, "Olive")) == "colour Olive"


def test_a_button_inside_a_clickable_wrapper_is_marked_as_the_button(page, browser):
    obs = observe(page("controls.html"))
    assert one(obs, "Submit").tag == "button"
    send = one(obs, "Send")
    assert send.tag == "button"
    assert click(browser, obs, send) == "sent"


def test_custom_checkboxes_radios_and_switches_are_marked_as_the_control(page, browser):
    obs = observe(page("controls.html"))
    news = one(obs, "Email me the newsletter")
    assert (news.role, news.value) == ("checkbox", "unchecked")
    assert (one(obs, "Monthly plan").role, one(obs, "Monthly plan").value) == ("radio", "checked")
    assert one(obs, "Yearly plan").value == "unchecked"
    dark = one(obs, "Dark mode")
    assert dark.role == "switch" or dark.role == "checkbox"
    assert dark.value == "unchecked"
    assert (one(obs, "Autosave").role, one(obs, "Autosave").value) == ("switch", "checked")
    line = [x for x in obs.element_text.splitlines() if "Email me the newsletter" in x][0]
    assert "checkbox" in line and "unchecked" in line, line
    click(browser, obs, news)
    assert one(observe(browser), "Email me the newsletter").value == "checked"


def test_icon_only_links_and_buttons_are_named(page):
    obs = observe(page("controls.html"))
    for name in ("Settings", "Delete item", "GitHub", "Share this page", "Print"):
        m = one(obs, name)
        line = [x for x in obs.element_text.splitlines() if x.startswith(f"[{m.id}]:")][0]
        assert f'"{name}"' in line and '""' not in line, line


def test_a_selects_options_are_in_the_element_text(page, browser):
    obs = observe(page("controls.html"))
    sel = [m for m in obs.marks if m.tag == "select"][0]
    line = [x for x in obs.element_text.splitlines() if x.startswith(f"[{sel.id}]:")][0]
    for name in ("Apricot", "Banana", "Damson", "Tangerine"):  # the first twenty
        assert f'"{name}"' in line, line
    assert '"Cherry" (selected)' in line, line
    assert '"Zucchini"' not in line and "+5 more" in line, line
    # An option named there is one Select can choose.
    Executor(browser).run(parse_action(f"Select [{sel.id}]; Tangerine"), obs.marks)
    assert browser.js("return document.getElementById('fruit').selectedOptions[0].text") == "Tangerine"
    line = [x for x in observe(browser).element_text.splitlines() if "<select>" in x][0]
    assert '"Tangerine" (selected)' in line and '"Cherry" (selected)' not in line, line


def _marks_of(browser, **opts):
    res = json.loads(browser.js(f"return JSON.stringify(window.{SOM_GLOBAL}(arguments[0]))", opts))
    return res["stats"], [(m["tag"], m["text"], tuple(m["bbox"])) for m in res["marks"]]


def test_flat_large_page_marks_what_a_full_walk_marks(browser, site):
    html = pagegen.generate(20000, "flat")
    # Out of the layout order: a chat dialog fixed mid-viewport from the middle of the list, a cookie
    # banner fixed at the bottom from the end of <body>.
    mid = html.index("<p>Line 10000:")
    html = (html[:mid] + '<div style="position:fixed;top:300px;left:300px;width:400px;height:200px;'
            'background:#eef"><button style="width:380px;height:180px">Chat with us</button></div>' + html[mid:])
    html = html.replace("</body>", '<div style="position:fixed;bottom:0;left:0;right:0;height:60px;'
                        'background:#ffd"><button>Accept cookies</button></div></body>')
    (site.root / "flat.html").write_text(html)
    for scroll in (0, 123456):
        browser.goto(site.url("flat.html"))
        browser.js(f"window.scrollTo(0, {scroll})")
        fast_stats, fast = _marks_of(browser)
        _, full = _marks_of(browser, bisectAbove=10 ** 9, pruneAbove=10 ** 9)
        assert fast == full and 5 < len(fast) < 200
        assert {"Chat with us", "Accept cookies"} <= {text for _, text, _ in fast}
        assert fast_stats["visited"] < 2000, fast_stats  # the viewport's siblings, not all 20,000


def test_table_of_5000_rows_marks_what_a_full_walk_marks(browser, site):
    (site.root / "table.html").write_text(pagegen.generate(35000, "table"))
    for scroll in (0, 40000):
        browser.goto(site.url("table.html"))
        browser.js(f"window.scrollTo(0, {scroll})")
        fast_stats, fast = _marks_of(browser)
        _, full = _marks_of(browser, bisectAbove=10 ** 9, pruneAbove=10 ** 9)
        assert fast == full and 20 < len(fast) < 200
        assert fast_stats["visited"] < 3000, fast_stats


_COMBO = ('<input role="combobox" aria-expanded="false" aria-controls="lb" id="city" placeholder="City">'
          '<script>document.getElementById("city").addEventListener("click", () => {'
          ' const ul = document.createElement("ul"); ul.id = "lb"; ul.setAttribute("role", "listbox");'
          ' ul.style.cssText = "position:absolute;top:30px;left:8px;width:200px;background:#fff;'
          'border:1px solid #999;margin:0;padding:0;list-style:none;z-index:9";'
          ' for (const c of ["Lisbon", "Oslo", "Tallinn"]) { const li = document.createElement("li");'
          ' li.setAttribute("role", "option"); li.textContent = c; li.style.padding = "4px";'
          ' li.addEventListener("click", () => { document.getElementById("city").value = c; ul.remove(); });'
          ' ul.appendChild(li); }'
          ' document.body.appendChild(ul); document.getElementById("city").setAttribute("aria-expanded", "true"); });'
          '</script>')


def test_an_open_combobox_portal_on_a_long_page_shows_its_options(browser, site):
    # A long flat page (walked by bisection) whose combobox appends its listbox at the end of <body>.
    html = pagegen.generate(5000, "flat").replace("<body>", "<body>" + _COMBO, 1)
    (site.root / "combo.html").write_text(html)
    browser.goto(site.url("combo.html"))
    obs = observe(browser)
    assert obs.stats.get("bisected")
    assert not marks_with(obs, "Oslo")
    Executor(browser).run(parse_action(f"Click [{[m for m in obs.marks if m.placeholder == 'City'][0].id}]"),
                          obs.marks)
    obs = observe(browser)
    for city in ("Lisbon", "Oslo", "Tallinn"):
        assert one(obs, city).role == "option"
    Executor(browser).run(parse_action(f"Click [{one(obs, 'Oslo').id}]"), obs.marks)
    assert browser.js("return document.getElementById('city').value") == "Oslo"


def test_a_popup_escapes_the_overflow_of_ancestors_below_its_containing_block(page):
    obs = observe(page("popup_clip.html"))
    names = [m.text for m in obs.marks]
    # Wagtail's header "Actions" menu: absolutely placed below a header with overflow:hidden.
    assert "Edit image" in names and "Delete image" in names
    # Inside a positioned box that clips, an absolute child outside it is really hidden.
    assert "Hidden link" not in names


def test_nothing_under_a_see_through_mask_over_the_whole_page_is_marked(page):
    obs = observe(page("popup_mask.html"))
    names = [m.text or m.aria_label for m in obs.marks]
    # A click on "Home" would only land on the mask and close the list: the list is what is offered.
    assert names == ["Search observatories", "Kitt Peak", "Mauna Kea", "La Silla"], names
    assert obs.stats["masked"] >= 4  # Home, Stars, Comets, the field, Save


def test_labels_over_hidden_inputs_are_marked_when_they_look_like_controls(page):
    obs = observe(page("toggle_labels.html"))
    by = {m.text: m for m in obs.marks}
    assert "Table of contents" not in by  # plain text with the default cursor
    assert by["Send me the newsletter"].role == "checkbox"  # a box drawn by ::before
    assert by["Dark mode"].role == "checkbox"  # a slider with a pointer inside
    # A tab's label wrapping its anchor is one thing; a small link inside a label is its own.
    assert [m.text for m in obs.marks].count("Linux") == 1 and by["Linux"].tag == "label"
    assert by["Terms"].tag == "a" and by["Terms"].href.endswith("/terms")


def test_the_step_record_says_what_a_mask_hid():
    from cockpit.core.store.records import Step
    step = Step.from_row({"run_id": "r", "n": 1, "timings": {"observe": {"retries": 0, "masked": 5}}})
    assert step.page_note == ("5 elements under a see-through layer over the whole page (a popup's backdrop) "
                              "not marked")

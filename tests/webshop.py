"""The web shop fixture (tests/pages/web_*.html, items.json) as a site of its own: a copy in a temporary
folder, served on 127.0.0.1, counting every request it answers, that a test can change (reseed its items:
lists reorder, prices change, an item is renamed) or take down, and the scripted model that shops there."""
import functools
import json
import shutil
import threading
from pathlib import Path

from cockpit.core.localserver import LocalSite
from tests import PAGES
from tests.models import last_user_text, mark_for

FILES = ("web_list.html", "web_item.html", "web_done.html", "web.css", "items.json")


class WebShop(LocalSite):
    """`seen` lists (method, path) of every request answered."""

    def __init__(self, root: Path):
        root.mkdir(parents=True, exist_ok=True)
        for name in FILES:
            shutil.copy(PAGES / name, root / name)
        super().__init__(root)
        self.root = root
        seen = self.seen = []
        lock = threading.Lock()
        base = self.httpd.RequestHandlerClass.func

        class Counting(base):
            def do_GET(self):
                with lock:
                    seen.append(("GET", self.path))
                super().do_GET()

            def do_POST(self):
                with lock:
                    seen.append(("POST", self.path))
                super().do_POST()
        self.httpd.RequestHandlerClass = functools.partial(Counting, directory=str(root))

    def change(self) -> None:
        """Reseed: prices change (the list reorders), the kettle is renamed, a new item comes first."""
        items = [{"id": 1, "name": "Blue teapot", "price": 9},
                 {"id": 2, "name": "Crimson kettle", "price": 41},
                 {"id": 3, "name": "Green mug", "price": 14},
                 {"id": 4, "name": "Yellow cup", "price": 13},
                 {"id": 5, "name": "Black pan", "price": 5}]
        (self.root / "items.json").write_text(json.dumps(items))


def web_shopper(item: str = "Red kettle", password: str = ""):
    """The scripted model: open `item`, type `password` (if any) into the password field, place the order,
    answer."""
    typed = []

    def respond(body):
        text = last_user_text(body)
        if "The page is 'Order placed'" in text:
            return "Thought: done\nAction: ANSWER; ordered"
        if "The page is 'Web item" in text and password and not typed:
            typed.append(1)
            return f"Thought: sign\nAction: Type [{mark_for(body, 'Password')}]; {password}"
        if "The page is 'Web item" in text:
            return f"Thought: order it\nAction: Click [{mark_for(body, 'Place order')}]"
        return f"Thought: open it\nAction: Click [{mark_for(body, item)}]"
    return respond

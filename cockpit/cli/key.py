"""`cockpit key`: the API key in the OS keyring (set, delete, status)."""
from __future__ import annotations

import getpass
import sys

from . import common

HELP = "store, remove or check the API key for a model server (OS keyring; OPENAI_API_KEY as fallback)"


def add_parser(sub) -> None:
    p = sub.add_parser("key", help=HELP, description=HELP + ". The key is never written anywhere "
                       "else: not in settings, the run store, logs or exports.")
    p.add_argument("action", choices=("status", "set", "delete"))
    p.add_argument("--base-url", metavar="URL", help="the server the key is for (default: OpenAI)")


def run(args) -> int:
    from ..core import secrets
    from ..core.errors import CockpitError
    try:
        if args.action == "status":
            usable, why = secrets.keyring_usable()
            print(f"keyring: {why}")
            look = secrets.get_api_key(args.base_url)
            print(f"key for {secrets.host_of(args.base_url)}: "
                  + ("found" if look.key else "none") + f" - {look.note}")
            return 0 if look.key else 1
        if args.action == "set":
            key = getpass.getpass("API key: ") if sys.stdin.isatty() else sys.stdin.readline()
            secrets.set_api_key(args.base_url, key)
            print(f"stored the key for {secrets.host_of(args.base_url)} in the keyring")
            return 0
        removed = secrets.delete_api_key(args.base_url)
        print("removed" if removed else "there was no key stored for this server")
        return 0
    except CockpitError as e:
        return common.fail(str(e), 2)

"""`cockpit key`: the API key in the OS keyring (set, delete, status)."""
from __future__ import annotations

import getpass
import sys

from cockpit.cli import common

HELP = ("set, delete or see the status of the API key for a model server (OS keyring; OPENAI_API_KEY as "
        "fallback)")


def add_parser(sub) -> None:
    p = sub.add_parser("key", help=HELP, description=HELP + ". The key is never written anywhere "
                       "else: not in settings, the run store, logs or exports.")
    p.add_argument("action", choices=("status", "set", "delete"),
                   help="status: where the key would come from (exit 1 when OpenAI has none; other servers "
                        "are called without one)")
    p.add_argument("--base-url", metavar="URL", help="the server the key is for (default: OpenAI)")


def run(args) -> int:
    from cockpit.core.errors import CockpitError
    from cockpit.core.llm import apikeys
    from cockpit.core.llm.client import is_openai
    try:
        if args.action == "status":
            usable, why = apikeys.keyring_usable()
            print(f"keyring: {why}")
            look = apikeys.get_api_key(args.base_url)
            host = apikeys.host_of(args.base_url)
            if look.key:
                print(f"key for {host}: found - {look.note}")
                return 0
            how = (f"store one with `cockpit key set{_url_opt(args.base_url)}` or set {apikeys.ENV_VAR}" if usable
                   else f"set {apikeys.ENV_VAR} (there is no keyring to store one in)")
            if not is_openai(args.base_url):  # Cockpit calls it without a key: fine for a local server
                print(f"key for {host}: none, and none needed: servers other than OpenAI are called without "
                      f"a key (local servers need none); if this one asks for one, {how}")
                return 0
            print(f"key for {host}: none ({apikeys.ENV_VAR} is not set"
                  + (" and the keyring holds none for it" if usable else "") + f"); {how}")
            return 1
        if args.action == "set":
            key = getpass.getpass("API key: ") if sys.stdin.isatty() else sys.stdin.readline()
            apikeys.set_api_key(args.base_url, key)
            print(f"stored the key for {apikeys.host_of(args.base_url)} in the keyring")
            return 0
        removed = apikeys.delete_api_key(args.base_url)
        print("removed" if removed else "there was no key stored for this server")
        return 0
    except CockpitError as e:
        return common.fail(str(e), 2)


def _url_opt(base_url: str | None) -> str:
    return f" --base-url {base_url}" if base_url else ""

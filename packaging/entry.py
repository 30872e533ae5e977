"""The bundle's entry point: ``cockpit --smoke-test [...]`` runs the smoke test, anything else is the CLI.

Kept outside the cockpit package so the bundle-only flag needs no change to
cockpit.cli; from source the same check is ``python -m cockpit.ui.smoke``.
"""
import sys


def _main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--smoke-test"]:
        from cockpit.ui.smoke import main as smoke
        return smoke(args[1:])
    from cockpit.cli import main
    return main(args)


if __name__ == "__main__":
    sys.exit(_main())

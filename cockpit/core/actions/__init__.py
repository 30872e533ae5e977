"""Actions: the grammar the model writes (grammar.py) and executing it (execute.py)."""
from cockpit.core.actions.grammar import Action, parse_action

__all__ = ["Action", "parse_action"]

"""Judging runs: the LLM judge, agreement between annotators, reports, comparison, procedural memory."""

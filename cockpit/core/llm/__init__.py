"""Talking to models: the OpenAI-compatible client, prompts, API keys, and the test model server."""

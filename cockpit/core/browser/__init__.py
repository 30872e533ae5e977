"""Seeing the browser: the WebDriver session, its direct DevTools connection, and its profiles."""

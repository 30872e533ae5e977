"""Bench settings appended to the project `wagtail start cms` generates (copied to cms/settings/local.py).

Only configuration: every page comes from Wagtail's admin. SQLite database under GATE_DATA.
"""
import os
from pathlib import Path

DATA = Path(os.environ["GATE_DATA"])
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(DATA / "cms.sqlite3")}}
# Sessions in signed cookies: restoring the database between cases keeps the browser logged in.
SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
MESSAGE_STORAGE = "django.contrib.messages.storage.cookie.CookieStorage"
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
WAGTAILADMIN_BASE_URL = "http://127.0.0.1:8103"
MEDIA_ROOT = str(DATA / "cms-media")
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"

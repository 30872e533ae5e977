"""The run store: runs and steps in SQLite (sqlite-utils, WAL), files beside it."""
from cockpit.core.store.db import SCHEMA_VERSION, Store, StoreError  # noqa: F401

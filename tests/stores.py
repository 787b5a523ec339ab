"""The two stores the contract tests run against, behind one helper: where a ledger is, and raw
SQL on its database (to tamper behind the triggers, as an attacker with the file would)."""

from __future__ import annotations

import re
import shutil
import sqlite3
import uuid
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import pytest

from ledger import Ledger
from tests import paths

#: The stores every contract test runs on (PostgreSQL skips where no server can run).
KINDS = ("sqlite", "postgresql")


def open_backend(request: pytest.FixtureRequest, kind: str, folder: Path) -> Backend:
    """A fresh store of `kind` (a file in `folder`, or a schema on the test server)."""
    if kind == "sqlite":
        return SqliteBackend(folder / "encounters.db")
    return PgBackend(request.getfixturevalue("pg_server"))


class Backend(ABC):
    """A fresh, empty store of one kind; `location` is what `Ledger()` and `--db` take."""

    kind: str
    location: str
    #: What the database raises when a trigger refuses a change.
    integrity_error: type[Exception]

    def ledger(self, **options: Any) -> Ledger:
        """A `Ledger` on this store."""
        return Ledger(self.location, **options)

    @abstractmethod
    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Run one statement (`?` placeholders) on the database directly, committed."""
        ...

    @abstractmethod
    def unguard(self) -> None:
        """Drop the append-only triggers, as someone holding the database could."""
        ...

    @abstractmethod
    def tamper(self, *statements: str) -> None:
        """Run `statements` with the append-only guard lifted, then put it back word for word
        (as someone holding the database could: nothing of the guard shows the change)."""
        ...

    @abstractmethod
    def sibling(self, name: str) -> Backend:
        """Another fresh store of the same kind."""
        ...

    @abstractmethod
    def copy(self, name: str) -> Backend:
        """A copy of this store's rows, without the append-only triggers."""
        ...

    def close(self) -> None:  # noqa: B027 (a SQLite file needs no clean-up: tmp_path does it)
        """Remove what the store left behind (a PostgreSQL schema)."""


class SqliteBackend(Backend):
    """A ledger file in a temporary folder."""

    kind = "sqlite"
    integrity_error: type[Exception] = sqlite3.IntegrityError

    def __init__(self, path: Path) -> None:
        self.path = path
        self.location = str(path)

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        raw = sqlite3.connect(self.path)
        try:
            rows = raw.execute(sql, params)
            found = rows.fetchall()
            raw.commit()
            return found
        finally:
            raw.close()

    def unguard(self) -> None:
        self.execute("DROP TRIGGER events_no_update")
        self.execute("DROP TRIGGER events_no_delete")

    def tamper(self, *statements: str) -> None:
        raw = sqlite3.connect(self.path)
        try:
            triggers = raw.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"
            ).fetchall()
            for name, _ in triggers:
                raw.execute(f"DROP TRIGGER {name}")
            for statement in statements:
                raw.execute(statement)
            for _, sql in triggers:
                raw.execute(sql)
            raw.commit()
        finally:
            raw.close()

    def sibling(self, name: str) -> Backend:
        return SqliteBackend(self.path.with_name(f"{name}.db"))

    def copy(self, name: str) -> Backend:
        path = self.path.with_name(f"{name}-{uuid.uuid4().hex[:8]}.db")
        shutil.copyfile(self.path, path)
        copied = SqliteBackend(path)
        copied.unguard()
        return copied


class PgBackend(Backend):
    """A schema of its own in the test server's database (fast to make, dropped afterwards)."""

    kind = "postgresql"

    def __init__(self, server: str, schema: str | None = None) -> None:
        import psycopg

        self.server = server
        self.integrity_error = psycopg.IntegrityError
        self.schema = schema or f"t_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {self.schema}")
        joiner = "&" if "?" in server else "?"
        self.location = f"{server}{joiner}options={quote(f'-csearch_path={self.schema}')}"
        self._siblings: list[PgBackend] = []

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.location, autocommit=True) as conn:
            cursor = conn.execute(sql.replace("?", "%s"), params)
            return cursor.fetchall() if cursor.description else []

    def unguard(self) -> None:
        for trigger in ("events_no_update", "events_no_delete", "events_no_truncate"):
            self.execute(f"DROP TRIGGER IF EXISTS {trigger} ON events")

    def tamper(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.location, autocommit=True) as conn, conn.transaction():
            triggers = conn.execute(
                "SELECT tgname, pg_get_triggerdef(oid), tgenabled FROM pg_trigger "
                "WHERE tgrelid = 'events'::regclass AND NOT tgisinternal"
            ).fetchall()
            for name, _, _ in triggers:
                conn.execute(f"DROP TRIGGER {name} ON events")
            for statement in statements:
                conn.execute(statement)
            enabling = {"O": "ENABLE", "D": "DISABLE", "R": "ENABLE REPLICA", "A": "ENABLE ALWAYS"}
            for name, definition, enabled in triggers:
                conn.execute(definition)
                conn.execute(f"ALTER TABLE events {enabling[enabled]} TRIGGER {name}")

    def sibling(self, name: str) -> Backend:
        other = PgBackend(self.server)
        self._siblings.append(other)
        return other

    def copy(self, name: str) -> Backend:
        import psycopg

        other = PgBackend(self.server)
        self._siblings.append(other)
        with psycopg.connect(self.server, autocommit=True) as conn:
            for table in ("events", "heads"):
                # LIKE copies the keys and indexes, not the triggers.
                conn.execute(
                    f"CREATE TABLE {other.schema}.{table} "
                    f"(LIKE {self.schema}.{table} INCLUDING ALL)"
                )
                conn.execute(
                    f"INSERT INTO {other.schema}.{table} SELECT * FROM {self.schema}.{table}"
                )
        return other

    def close(self) -> None:
        import psycopg

        with psycopg.connect(self.server, autocommit=True) as conn:
            for backend in [self, *self._siblings]:
                conn.execute(f"DROP SCHEMA IF EXISTS {backend.schema} CASCADE")


HOSTING = paths.ROOT / "docs" / "hosting.md"


def hosting_sql() -> list[list[str]]:
    """The statements of each SQL block of the docs' hosting page."""
    section = HOSTING.read_text(encoding="utf-8")
    blocks = re.findall(r"^```sql\n(.*?)^```$", section, re.S | re.M)
    return [[s.strip() for s in block.split(";") if s.strip()] for block in blocks]


def as_user(server: str, user: str | None, database: str) -> str:
    """The server's URL for another user (None: the same) and database."""
    parts = urlsplit(server)
    netloc = parts.netloc if user is None else f"{user}@{parts.netloc.rpartition('@')[2]}"
    return urlunsplit(parts._replace(netloc=netloc, path=f"/{database}"))


class Hosted:
    """A database set up as the docs' hosting page says: its owner, whose first write made the
    tables, and the app role with the page's grants (names made unique for the test)."""

    def __init__(self, server: str) -> None:
        import psycopg

        self.server = server
        tag = uuid.uuid4().hex[:8]
        self.names = {n: f"{n}_{tag}" for n in ("encounter_owner", "encounter_app", "encounters")}
        rename = re.compile(r"\b(encounter_owner|encounter_app|encounters)\b")
        create, grant = hosting_sql()
        database = self.names["encounters"]
        self.owner = as_user(server, self.names["encounter_owner"], database)
        self.app = as_user(server, self.names["encounter_app"], database)
        #: The superuser, on the hosted database.
        self.admin = as_user(server, None, database)
        with psycopg.connect(server, autocommit=True) as conn:
            for statement in create:
                conn.execute(rename.sub(lambda m: self.names[m[1]], statement))
        with Ledger(self.owner) as ledger:  # the owner's first write makes the tables
            ledger.open("setup", "ssss")
        with psycopg.connect(self.admin, autocommit=True) as conn:
            for statement in grant:
                conn.execute(rename.sub(lambda m: self.names[m[1]], statement))

    def execute(
        self, url: str, sql: str, params: tuple[Any, ...] = (), *, tenant: str = "default"
    ) -> list[tuple[Any, ...]]:
        """Run one statement as the user of `url` (`?` placeholders), committed, in a session
        that names `tenant` (row-level security shows it that tenant's rows only)."""
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SELECT set_config('app.tenant', %s, false)", (tenant,))
            cursor = conn.execute(sql.replace("?", "%s"), params)
            return cursor.fetchall() if cursor.description else []

    def close(self) -> None:
        import psycopg

        with psycopg.connect(self.server, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {self.names['encounters']} WITH (FORCE)")
            for role in ("encounter_app", "encounter_owner"):
                conn.execute(f"DROP ROLE IF EXISTS {self.names[role]}")

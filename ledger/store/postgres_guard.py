"""The append-only guard of a PostgreSQL ledger, and how it is checked.

Four triggers on `events`, each `ENABLE ALWAYS` (so `session_replication_role = replica` does
not switch them off): three refuse UPDATE, DELETE and TRUNCATE; the fourth checks every row
inserted, by the ledger or by any role that may INSERT (the app role of the docs' hosting
page): it must be the next link of its tenant's encounter's chain (seq, prev_hash), its hash
the contract hash of its contents, its body a JSON object in the exact text the ledger writes
(keys sorted, no white space, strings escaped as Python's `json` escapes them, whole numbers
only), its type a lowercase dotted name; and it gives the row its `position`. What the
database cannot check is whether the body is an event its system accepts: a row that is not is
an unreadable event, which `verify` and `audit` report and an undo retracts.

`verify` compares every part of the guard with these texts, as SQLite's triggers are compared
word for word: the triggers' kind, state and function, the functions' source; and reports any
trigger or rule of another hand on the ledger's tables, and a `session_replication_role` that
is not `origin`.
"""

from __future__ import annotations

from typing import Any, Final

import psycopg

#: The functions of the guard: name -> (arguments and result, source, options).
FUNCTIONS: Final[dict[str, tuple[str, str, str]]] = {
    "events_refuse_change": (
        "() RETURNS trigger",
        """
    BEGIN
        RAISE EXCEPTION 'events are append-only: % refused', TG_OP
            USING ERRCODE = 'restrict_violation';
    END """,
        "",
    ),
    # The one UPDATE let through: an erasure, inside `encounter erase`'s transaction (which
    # names its tenant and encounter in `app.erasing`, SET LOCAL), a body that had text made
    # empty, every other column as it was. Any other UPDATE is refused, the owner's included.
    "events_check_erasure": (
        "() RETURNS trigger",
        """
    BEGIN
        IF current_setting('app.erasing', true) IS DISTINCT FROM OLD.tenant || '/' || OLD.encounter
            OR NEW.body IS DISTINCT FROM '' OR OLD.body = ''
            OR (NEW.tenant, NEW.encounter, NEW.seq, NEW.id, NEW.type, NEW.recorded_at,
                NEW.prev_hash, NEW.hash, NEW.position)
            IS DISTINCT FROM (OLD.tenant, OLD.encounter, OLD.seq, OLD.id, OLD.type,
                OLD.recorded_at, OLD.prev_hash, OLD.hash, OLD.position) THEN
            RAISE EXCEPTION 'events are append-only: % refused (an erasure goes through '
                'encounter erase)', TG_OP USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
    END """,
        "",
    ),
    # The text of a JSON value as the ledger writes it, or NULL when `value` is not that text
    # (keys out of order or given twice, a number that is not a whole number spelled plainly:
    # events hold whole numbers only).
    "events_canonical": (
        "(value json) RETURNS text",
        """
    DECLARE
        out text := '';
        token text;
        key text;
        item json;
        previous text;
    BEGIN
        CASE json_typeof(value)
        WHEN 'object' THEN
            FOR key, item IN SELECT e.key, e.value FROM json_each(value) AS e LOOP
                IF previous IS NOT NULL AND NOT key COLLATE "C" > previous COLLATE "C" THEN
                    RETURN NULL;
                END IF;
                token := events_canonical(item);
                IF token IS NULL THEN
                    RETURN NULL;
                END IF;
                out := out || CASE WHEN previous IS NULL THEN '' ELSE ',' END
                    || to_json(key)::text || ':' || token;
                previous := key;
            END LOOP;
            RETURN '{' || out || '}';
        WHEN 'array' THEN
            FOR item IN SELECT e.value FROM json_array_elements(value) AS e LOOP
                token := events_canonical(item);
                IF token IS NULL THEN
                    RETURN NULL;
                END IF;
                out := out || CASE WHEN out = '' THEN '' ELSE ',' END || token;
            END LOOP;
            RETURN '[' || out || ']';
        WHEN 'string' THEN
            RETURN to_json(value #>> '{}')::text;
        WHEN 'number' THEN
            token := value::text;
            IF token !~ '^(0|-?[1-9][0-9]*)$' THEN
                RETURN NULL;
            END IF;
            RETURN token;
        ELSE
            RETURN value::text;
        END CASE;
    END """,
        "IMMUTABLE STRICT",
    ),
    "events_check_append": (
        "() RETURNS trigger",
        """
    DECLARE
        last_seq bigint;
        last_hash text;
        document text;
    BEGIN
        SELECT seq, hash INTO last_seq, last_hash FROM events
            WHERE tenant = NEW.tenant AND encounter = NEW.encounter ORDER BY seq DESC LIMIT 1;
        IF NEW.seq IS DISTINCT FROM coalesce(last_seq, 0) + 1 THEN
            RAISE EXCEPTION 'events: seq % of encounter % is not its next seq (%)',
                NEW.seq, NEW.encounter, coalesce(last_seq, 0) + 1
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.prev_hash IS DISTINCT FROM coalesce(last_hash, repeat('0', 64)) THEN
            RAISE EXCEPTION 'events: prev_hash of seq % is not the hash of the seq before it',
                NEW.seq USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.type !~ '^[a-z][a-z0-9_]*([.][a-z0-9_]+)*$' OR length(NEW.id) NOT BETWEEN 1 AND 100
            OR NEW.recorded_at = '' THEN
            RAISE EXCEPTION 'events: seq % has no event type, id or time of the ledger''s kind',
                NEW.seq USING ERRCODE = 'check_violation';
        END IF;
        IF json_typeof(NEW.body::json) IS DISTINCT FROM 'object'
            OR events_canonical(NEW.body::json) IS DISTINCT FROM NEW.body THEN
            RAISE EXCEPTION 'events: the body of seq % is not a JSON object in the text the '
                'ledger writes', NEW.seq USING ERRCODE = 'check_violation';
        END IF;
        document := '{"body":' || NEW.body || ',"encounter":' || to_json(NEW.encounter)::text
            || ',"id":' || to_json(NEW.id)::text || ',"prev_hash":' || to_json(NEW.prev_hash)::text
            || ',"recorded_at":' || to_json(NEW.recorded_at)::text || ',"seq":' || NEW.seq::text
            || ',"type":' || to_json(NEW.type)::text || '}';
        IF NEW.hash IS DISTINCT FROM encode(sha256(convert_to(document, 'UTF8')), 'hex') THEN
            RAISE EXCEPTION 'events: the hash of seq % is not the hash of its contents', NEW.seq
                USING ERRCODE = 'check_violation';
        END IF;
        -- The position, given once the transaction has its id (and holds its lock): a
        -- follower waits for the transactions running when it read the sequence, then no
        -- gap below can fill.
        PERFORM pg_current_xact_id();
        NEW.position := nextval('events_position');
        RETURN NEW;
    END """,
        "",
    ),
}

#: The triggers of the guard: name -> (pg_trigger.tgtype, its function, how it is declared).
#: tgtype bits: 1 row, 2 before, 4 insert, 8 delete, 16 update, 32 truncate.
TRIGGERS: Final[dict[str, tuple[int, str, str]]] = {
    "events_no_update": (19, "events_check_erasure", "BEFORE UPDATE ON events FOR EACH ROW"),
    "events_no_delete": (11, "events_refuse_change", "BEFORE DELETE ON events FOR EACH ROW"),
    "events_no_truncate": (
        34,
        "events_refuse_change",
        "BEFORE TRUNCATE ON events FOR EACH STATEMENT",
    ),
    "events_append_check": (7, "events_check_append", "BEFORE INSERT ON events FOR EACH ROW"),
}

#: The ledger's tables, on which no trigger or rule of another hand may be.
TABLES: Final = ("events", "heads", "snapshots")


def statements() -> list[str]:
    """The statements that (re)create the guard, in order."""
    made = [
        f"CREATE OR REPLACE FUNCTION {name}{signature} LANGUAGE plpgsql {options} AS "
        f"$guard${source}$guard$"
        for name, (signature, source, options) in FUNCTIONS.items()
    ]
    for name, (_, function, declared) in TRIGGERS.items():
        made.append(f"CREATE OR REPLACE TRIGGER {name} {declared} EXECUTE FUNCTION {function}()")
        made.append(f"ALTER TABLE events ENABLE ALWAYS TRIGGER {name}")
    return made


def _words(text: str | None) -> list[str]:
    return (text or "").split()


_OURS: Final = """SELECT t.tgname, t.tgtype, t.tgenabled, t.tgqual IS NULL,
    coalesce(array_length(t.tgattr::int2[], 1), 0), t.tgnargs, p.proname,
    p.pronamespace = c.relnamespace
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
    WHERE t.tgrelid = 'events'::regclass AND NOT t.tgisinternal"""
_SOURCES: Final = """SELECT p.proname, p.prosrc, l.lanname, p.prosecdef FROM pg_proc p
    JOIN pg_language l ON l.oid = p.prolang
    WHERE p.pronamespace = (SELECT relnamespace FROM pg_class WHERE oid = 'events'::regclass)
    AND p.proname = ANY(%s)"""


#: The function each trigger called before erasure, as strict (it refused every UPDATE): a
#: database the owner has not opened since is not altered, and the owner's next open makes
#: the guard anew.
PREVIOUS: Final = {"events_no_update": "events_refuse_change"}


def altered(conn: psycopg.Connection[Any], *, previous: bool = True) -> list[str]:
    """The guard's triggers that are missing or not as the ledger made them (disabled, not
    ALWAYS, of another kind, calling another function, or one whose source was replaced),
    each as `name (what is wrong)`; with `previous`, a trigger as the guard before erasure
    made it is as it should be (`previous=False`: it is to be made anew)."""
    found = {row[0]: row[1:] for row in conn.execute(_OURS).fetchall()}
    sources = {
        name: (source, language, definer)
        for name, source, language, definer in conn.execute(_SOURCES, (list(FUNCTIONS),))
    }
    wrong = []
    for name, (kind, function, _) in TRIGGERS.items():
        if name not in found:
            wrong.append(f"{name} (missing)")
            continue
        tgtype, enabled, unconditional, columns, arguments, proname, beside = found[name]
        if previous and PREVIOUS.get(name) == proname:
            function = proname
        source = sources.get(proname)
        if enabled != "A":
            state = {"D": "disabled", "O": "not ENABLE ALWAYS", "R": "replica only"}
            wrong.append(f"{name} ({state.get(enabled, 'not ENABLE ALWAYS')})")
        elif tgtype != kind or not unconditional or columns or arguments:
            wrong.append(f"{name} (not the ledger's kind of trigger)")
        elif proname != function or not beside:
            wrong.append(f"{name} (calls {proname}, not {function})")
        elif _replaced(function, source) or (
            function == "events_check_append"
            and any(_replaced(f, sources.get(f)) for f in _HELPERS)
        ):
            wrong.append(f"{name} (its function was replaced)")
    return wrong


#: The functions the row check calls.
_HELPERS: Final = ("events_canonical",)


def _replaced(function: str, found: tuple[str, str, bool] | None) -> bool:
    if found is None:
        return True
    source, language, definer = found
    return language != "plpgsql" or definer or _words(source) != _words(FUNCTIONS[function][1])


_FOREIGN: Final = """SELECT t.tgname, c.relname FROM pg_trigger t
    JOIN pg_class c ON c.oid = t.tgrelid
    WHERE NOT t.tgisinternal AND c.oid = ANY(%s::regclass[])
    ORDER BY c.relname, t.tgname"""
_RULES: Final = """SELECT r.rulename, c.relname FROM pg_rewrite r
    JOIN pg_class c ON c.oid = r.ev_class
    WHERE c.oid = ANY(%s::regclass[]) AND r.rulename <> '_RETURN'
    ORDER BY c.relname, r.rulename"""


def problems(conn: psycopg.Connection[Any]) -> list[str]:
    """What is wrong with the guard, in words: its own triggers altered, and any trigger or
    rule of another hand on the ledger's tables, or a replication role that skips triggers."""
    said = [
        f"the append-only trigger {what}: rows can be changed or appended without a trace in "
        "the database (opening the ledger as its owner recreates it)"
        for what in altered(conn)
    ]
    present = [
        t
        for (t,) in conn.execute(
            "SELECT t FROM unnest(%s::text[]) AS t WHERE to_regclass(t) IS NOT NULL",
            (list(TABLES),),
        )
    ]
    for name, table in conn.execute(_FOREIGN, (present,)).fetchall():
        if not (table == "events" and name in TRIGGERS):
            said.append(
                f"the trigger {name} on {table} is not the ledger's own: it can swallow or "
                "change what is written"
            )
    for name, table in conn.execute(_RULES, (present,)).fetchall():
        said.append(
            f"the rule {name} on {table} is not the ledger's own: it can swallow or change "
            "what is written"
        )
    role = conn.execute("SELECT current_setting('session_replication_role')").fetchone()
    if role is not None and role[0] != "origin":
        said.append(
            f"session_replication_role is {role[0]!r} for this role or database: triggers that "
            "are not ENABLE ALWAYS do not fire"
        )
    return said

"""State has owners: each table belongs to one data module, and SQL (statements in strings, `.execute` calls) lives
only there. OWNERS below is the one list of who owns what; BORROWED and NOT_DATA are today's exceptions, each
with its reason, to be moved into the owner over time (and then deleted here: a stale exception fails too).

Read from the source (ast): a string constant holding a statement (SELECT … FROM, INSERT INTO, UPDATE … SET,
DELETE FROM, CREATE/ALTER/DROP TABLE …), f-string parts included, or a call of `.execute`, `.executemany` or
`.executescript`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GROVE = ROOT / "src" / "grove"

# table -> the module (path under src/grove) that owns it; a folder ("kanban/") owns it with every module in it.
OWNERS: dict[str, str] = {
    # state.db; the CREATE of each lives in store/migrations.py (see SCHEMA)
    "sessions": "store/sessions.py",
    "messages": "store/sessions.py",
    "messages_fts": "store/sessions.py",
    "messages_trigram": "store/sessions.py",
    "compressions": "store/sessions.py",
    "session_backends": "store/sessions.py",
    "cron_jobs": "store/cron_jobs.py",
    "cron_runs": "store/cron_jobs.py",
    "goals": "goals/store.py",
    "goal_verdicts": "goals/store.py",
    "learning_runs": "learning/runs.py",
    "approval_log": "security/approval/decisions.py",
    "approval_always": "security/approval/decisions.py",
    "serve_keys": "serve/keys.py",
    "serve_conversations": "serve/conversations.py",
    "serve_session_owners": "serve/conversations.py",
    "serve_responses": "serve/response_store.py",
    "gateway_chats": "gateway/chats.py",
    "skill_catalog": "skills/catalog.py",
    "skill_fts": "skills/catalog.py",
    "skill_fts_vocab": "skills/catalog.py",
    "skill_events": "skills/usage.py",
    "skill_usage": "skills/usage.py",
    "skill_outcomes": "skills/outcomes.py",
    "skill_scan_cache": "skills/scan_cache.py",
    "installed_skills": "skills_hub/records.py",
    "imported_sessions": "moving_in/sessions_import.py",
    "claim_verdicts": "claims/store.py",
    "message_embeddings": "embeddings/vectors.py",
    "embedding_state": "embeddings/vectors.py",
    # $GROVE_HOME/gateway/gateway.db: the accounts of a many-user gateway
    "users": "gateway/users.py",
    "pairing": "gateway/users.py",
    "seen": "gateway/users.py",
    "cursors": "gateway/users.py",
    "links": "gateway/link_table.py",
    # $GROVE_HOME/spend.db: the spend ledger
    "charge": "spend/ledger.py",
    "spend": "spend/ledger.py",
    # the kanban board (state.db or PostgreSQL): one data package with two backends and its own migrations
    "kanban_tasks": "kanban/",
    "kanban_deps": "kanban/",
    "kanban_runs": "kanban/",
    "kanban_comments": "kanban/",
    "kanban_events": "kanban/",
    "kanban_meta": "kanban/",
    "kanban_settings": "kanban/",
}

# modules that hold a database's schema and so name every table of it
SCHEMA: dict[str, str] = {
    "store/migrations.py": "state.db's migrations create and change every state.db table",
}

# (module, table it reads or writes without owning it): today's exceptions
BORROWED: dict[tuple[str, str], str] = {
    (
        "runtime/session.py",
        "messages",
    ): "Session reads a resumed session's messages itself (issue 36: to store)",
    ("runtime/child_usage.py", "sessions"): "a parent adds its children's usage to its session row",
    ("goals/history.py", "messages"): "the goal judge reads the goal session's whole history",
    ("serve/turns.py", "messages"): "an API turn finds the last message of a continued response",
    ("serve/keys.py", "serve_conversations"): "deleting a key deletes its conversations",
    ("serve/keys.py", "serve_session_owners"): "deleting a key deletes its session owners; admin listing",
    ("store/sessions.py", "serve_session_owners"): "session search: a serve key's agent recalls only its sessions",
    ("learning/curator.py", "sessions"): "the curator's idle check reads the newest session's time",
    ("learning/review.py", "skill_events"): "the reviewer reads which skills a session used",
    ("skills/index.py", "skill_usage"): "the prompt index ranks skills by use",
    ("skills/search_fts.py", "skill_catalog"): "skills_search queries the catalog's FTS5 index",
    ("skills/search_fts.py", "skill_fts"): "skills_search queries the catalog's FTS5 index",
    ("skills/search_fts.py", "skill_fts_vocab"): "skills_search expands words from the index's vocabulary",
    ("skills/usage.py", "sessions"): "a use's actor is read from its session's source",
    ("skills/usage.py", "skill_outcomes"): "a skill's usage stats carry its graded outcomes (one read)",
    ("moving_in/sessions_import.py", "sessions"): "grove import writes imported sessions in one transaction",
    ("moving_in/sessions_import.py", "messages"): "grove import writes imported messages in one transaction",
}

# modules with SQL or .execute calls that own no table: today's exceptions
NOT_DATA: dict[str, str] = {
    "store/db.py": "the state.db connection: runs the migrations under a guard, pragmas; names no table",
    "cli/doctor.py": "grove doctor checks the database is writable with a temporary table, reads pragmas",
    "security/commands/resolve_runs.py": "SQL here is what a command says (DROP TABLE in a classifier), not a query",
}

SQL = re.compile(
    r"\b(SELECT\b[\s\S]*?\bFROM|INSERT\s+(?:OR\s+\w+\s+)?INTO|REPLACE\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
    r"|CREATE\s+(?:TEMP\s+|TEMPORARY\s+|UNIQUE\s+|VIRTUAL\s+)?(?:TABLE|INDEX|TRIGGER|VIEW)|ALTER\s+TABLE"
    r"|DROP\s+(?:TABLE|INDEX|TRIGGER|VIEW))\b"
)
# a name in table position: after FROM, INTO, UPDATE, JOIN, TABLE [IF NOT EXISTS], or an index's/trigger's ON
NAMED = re.compile(
    r"\b(?:FROM|INTO|UPDATE|JOIN|TABLE(?:\s+IF\s+NOT\s+EXISTS)?|ON)\s+\"?([A-Za-z_][A-Za-z0-9_]*)",
    re.IGNORECASE,
)
CREATED = re.compile(
    r"\bCREATE\s+(TEMP\s+|TEMPORARY\s+)?(?:VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?\"?([A-Za-z_]\w*)"
)
EXECUTE = {"execute", "executemany", "executescript"}


@dataclass
class ModuleSql:
    statements: list[tuple[int, str]] = field(default_factory=list)  # (line, text)
    executes: list[int] = field(default_factory=list)

    def tables(self) -> set[str]:
        return {t for _, text in self.statements for t in NAMED.findall(text) if t in OWNERS}


def scan(path: Path) -> ModuleSql:
    out = ModuleSql()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.JoinedStr):  # f"UPDATE {t} SET ...": the parts read with a stand-in name
            text = "".join(v.value if isinstance(v, ast.Constant) else "_" for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in parts:
            text = node.value
        if text is not None and SQL.search(text):
            out.statements.append((node.lineno, text))
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in EXECUTE
        ):
            out.executes.append(node.lineno)
    return out


def sql_by_module() -> dict[str, ModuleSql]:
    found = {}
    for path in sorted(GROVE.rglob("*.py")):
        sql = scan(path)
        if sql.statements or sql.executes:
            found[path.relative_to(GROVE).as_posix()] = sql
    return found


def owns(module: str, table: str) -> bool:
    owner = OWNERS[table]
    return module.startswith(owner) if owner.endswith("/") else module == owner


def is_owner(module: str) -> bool:
    return any(owns(module, t) for t in OWNERS)


def test_sql_lives_only_in_data_modules() -> None:
    borrowers = {m for m, _ in BORROWED}
    wrong = [
        f"src/grove/{m}:{(s.statements[0][0] if s.statements else s.executes[0])}"
        for m, s in sql_by_module().items()
        if not (is_owner(m) or m in SCHEMA or m in borrowers or m in NOT_DATA)
    ]
    assert not wrong, (
        "SQL outside the data modules (move it into the module that owns the table, or add the table to OWNERS "
        "in tests/architecture/test_sql_owners.py if this module is its owner):\n" + "\n".join(wrong)
    )


def test_a_module_touches_only_the_tables_it_owns() -> None:
    wrong = []
    for module, sql in sql_by_module().items():
        if module in SCHEMA:
            continue
        for table in sorted(sql.tables()):
            if not owns(module, table) and (module, table) not in BORROWED:
                wrong.append(f"src/grove/{module} uses {table}, owned by src/grove/{OWNERS[table]}")
    assert not wrong, "tables used by a module that does not own them (go through the owner):\n" + "\n".join(
        wrong
    )


def test_every_table_has_an_owner() -> None:
    """A table created anywhere (temporary ones aside) is in OWNERS, so a new table gets its owner named."""
    unowned = []
    for module, sql in sql_by_module().items():
        for line, text in sql.statements:
            for temp, name in CREATED.findall(text):
                if (
                    not temp
                    and name not in OWNERS
                    and not name.endswith(("_data", "_idx", "_docsize", "_config"))
                ):
                    unowned.append(f"src/grove/{module}:{line} creates {name}")
    assert not unowned, "tables without an owner (add them to OWNERS):\n" + "\n".join(unowned)


def test_the_exceptions_are_still_needed() -> None:
    found = sql_by_module()
    stale = [f"BORROWED {k}" for k in BORROWED if k[1] not in found.get(k[0], ModuleSql()).tables()]
    stale += [f"NOT_DATA {m}" for m in NOT_DATA if m not in found or is_owner(m)]
    stale += [f"SCHEMA {m}" for m in SCHEMA if m not in found]
    assert not stale, "exceptions no longer needed (delete them from test_sql_owners.py):\n" + "\n".join(
        stale
    )


def test_the_scan_finds_sql_and_execute_calls(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        'Q = "SELECT a FROM sessions WHERE id = ?"\n'
        'def f(db, t):\n    db.execute(f"UPDATE {t} SET x = 1")\n'
        'NOTE = "Select a model from the list"\n'
    )
    sql = scan(module)
    assert [line for line, _ in sql.statements] == [1, 3] and sql.executes == [3]
    assert sql.tables() == {"sessions"}
    assert not owns("runtime/session.py", "sessions") and owns("kanban/leases.py", "kanban_tasks")

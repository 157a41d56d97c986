"""Append-only numbered schema migrations for state.db. Never edit a released one: add the next number."""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: sessions, messages, and two full-text indexes kept in sync by triggers
    """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        title TEXT,
        model TEXT NOT NULL,
        parent_id TEXT REFERENCES sessions(id),
        source TEXT NOT NULL DEFAULT 'cli',
        system_prompt TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        model_calls INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        cached_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0
    );
    CREATE INDEX sessions_updated ON sessions(updated_at);
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        content TEXT,
        tool_calls TEXT,
        tool_call_id TEXT,
        name TEXT,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        active INTEGER NOT NULL DEFAULT 1,
        created_at REAL NOT NULL
    );
    CREATE INDEX messages_session ON messages(session_id, id);
    CREATE VIRTUAL TABLE messages_fts USING fts5(
        content, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE messages_trigram USING fts5(
        content, content='messages', content_rowid='id', tokenize='trigram'
    );
    CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
        INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
        INSERT INTO messages_trigram(rowid, content) VALUES (new.id, new.content);
    END;
    CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
        INSERT INTO messages_trigram(messages_trigram, rowid, content) VALUES ('delete', old.id, old.content);
    END;
    CREATE TRIGGER messages_au AFTER UPDATE OF content ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
        INSERT INTO messages_trigram(messages_trigram, rowid, content) VALUES ('delete', old.id, old.content);
        INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
        INSERT INTO messages_trigram(rowid, content) VALUES (new.id, new.content);
    END;
    """,
    # 2: skill usage: one row of counters per skill, and the events they are counted from
    """
    CREATE TABLE skill_usage (
        name TEXT PRIMARY KEY,
        views INTEGER NOT NULL DEFAULT 0,
        uses INTEGER NOT NULL DEFAULT 0,
        patches INTEGER NOT NULL DEFAULT 0,
        created_by TEXT,
        created_session TEXT,
        created_at REAL,
        last_viewed_at REAL,
        last_used_at REAL,
        last_patched_at REAL
    );
    CREATE TABLE skill_events (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        session_id TEXT,
        detail TEXT,
        created_at REAL NOT NULL
    );
    CREATE INDEX skill_events_name ON skill_events(name, id);
    CREATE INDEX skill_events_session ON skill_events(session_id, name);
    """,
    # 3: approvals: every decision on a dangerous act, and the patterns the user approved "always"
    """
    CREATE TABLE IF NOT EXISTS approval_log (
        id INTEGER PRIMARY KEY,
        session_id TEXT,
        command TEXT NOT NULL,
        level TEXT NOT NULL,
        rules TEXT NOT NULL,
        decision TEXT NOT NULL,
        decided_by TEXT NOT NULL,
        reason TEXT,
        created_at REAL NOT NULL
    );
    CREATE INDEX IF NOT EXISTS approval_log_session ON approval_log(session_id, id);
    CREATE TABLE IF NOT EXISTS approval_always (
        pattern TEXT PRIMARY KEY,
        description TEXT,
        session_id TEXT,
        created_at REAL NOT NULL
    );
    """,
    # 4: compression (a message's place in the conversation, the compressions log) and goals with their verdicts
    """
    ALTER TABLE messages ADD COLUMN position REAL;
    CREATE TABLE IF NOT EXISTS compressions (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        reason TEXT NOT NULL,
        status TEXT NOT NULL,
        summary TEXT,
        skeleton TEXT,
        error TEXT,
        tokens_before INTEGER,
        tokens_after INTEGER,
        messages_compressed INTEGER NOT NULL DEFAULT 0,
        tool_results_pruned INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL
    );
    CREATE INDEX IF NOT EXISTS compressions_session ON compressions(session_id, id);
    CREATE TABLE IF NOT EXISTS goals (
        id TEXT PRIMARY KEY,
        session_id TEXT,
        text TEXT NOT NULL,
        criteria TEXT NOT NULL DEFAULT '[]',
        max_turns INTEGER NOT NULL,
        turns_used INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL,
        reason TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX IF NOT EXISTS goals_updated ON goals(updated_at);
    CREATE TABLE IF NOT EXISTS goal_verdicts (
        id INTEGER PRIMARY KEY,
        goal_id TEXT NOT NULL REFERENCES goals(id) ON DELETE CASCADE,
        turn INTEGER NOT NULL,
        verdict TEXT NOT NULL,
        reason TEXT,
        raw TEXT,
        created_at REAL NOT NULL
    );
    CREATE INDEX IF NOT EXISTS goal_verdicts_goal ON goal_verdicts(goal_id, id);
    """,
    # 5: learning runs: every background review and curator run, what it saw and what it changed
    """
    CREATE TABLE IF NOT EXISTS learning_runs (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        session_id TEXT,
        reviewer_session_id TEXT,
        up_to_message_id INTEGER,
        status TEXT NOT NULL,
        dry_run INTEGER NOT NULL DEFAULT 0,
        changes TEXT NOT NULL DEFAULT '[]',
        error TEXT,
        started_at REAL NOT NULL,
        finished_at REAL
    );
    CREATE INDEX IF NOT EXISTS learning_runs_session ON learning_runs(session_id, kind, id);
    CREATE INDEX IF NOT EXISTS learning_runs_kind ON learning_runs(kind, id);
    """,  # 6: honest skill usage: who acted on a skill (a working session, the reviewer, the curator...), code-skill
    # runs, the curator's freshness clock, and one graded outcome per use. Old events get their actor from their
    # session's source, and the counters are recomputed from the events of working sessions only.
    """
    ALTER TABLE skill_events ADD COLUMN actor TEXT;
    ALTER TABLE skill_usage ADD COLUMN runs INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE skill_usage ADD COLUMN fresh_at REAL;
    UPDATE skill_events SET actor = CASE
        WHEN kind IN ('create', 'edit', 'patch', 'write_file', 'remove_file', 'rollback', 'archive', 'restore')
             AND session_id IS NULL THEN 'user'
        WHEN (SELECT source FROM sessions s WHERE s.id = skill_events.session_id) = 'review' THEN 'reviewer'
        ELSE 'session' END;
    UPDATE skill_usage SET
        views = (SELECT count(*) FROM skill_events e WHERE e.name = skill_usage.name AND e.kind = 'view'
                 AND e.actor = 'session'),
        runs = (SELECT count(*) FROM skill_events e WHERE e.name = skill_usage.name AND e.kind = 'run'
                AND e.actor = 'session'),
        uses = (SELECT count(DISTINCT coalesce(e.session_id, e.id)) FROM skill_events e
                WHERE e.name = skill_usage.name AND e.kind IN ('view', 'run') AND e.actor = 'session'),
        last_used_at = (SELECT max(e.created_at) FROM skill_events e WHERE e.name = skill_usage.name
                        AND e.kind IN ('view', 'run') AND e.actor = 'session'),
        last_viewed_at = (SELECT max(e.created_at) FROM skill_events e WHERE e.name = skill_usage.name
                          AND e.kind = 'view' AND e.actor = 'session');
    UPDATE skill_usage SET fresh_at = max(coalesce(created_at, 0), coalesce(last_used_at, 0),
        coalesce((SELECT max(e.created_at) FROM skill_events e WHERE e.name = skill_usage.name
                  AND e.kind = 'restore'), 0));
    UPDATE skill_usage SET fresh_at = NULL WHERE fresh_at = 0;
    CREATE TABLE IF NOT EXISTS skill_outcomes (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        session_id TEXT NOT NULL,
        turn_key INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        detail TEXT,
        created_at REAL NOT NULL,
        UNIQUE (name, session_id, turn_key)
    );
    CREATE INDEX IF NOT EXISTS skill_outcomes_session ON skill_outcomes(session_id, turn_key);
    """,
    # 7: the skill catalog: each SKILL.md's parsed frontmatter keyed by its file stamp (a large library lists
    # without re-parsing), an FTS5 index of skill names, descriptions, headings and bodies (as search's terms),
    # and skill-scan verdicts cached by content hash and scanner version
    """
    CREATE TABLE IF NOT EXISTS skill_catalog (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        root TEXT NOT NULL,
        stamp TEXT NOT NULL,
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        category TEXT NOT NULL,
        frontmatter TEXT NOT NULL,
        warnings TEXT NOT NULL DEFAULT '[]',
        error TEXT,
        lengths TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX IF NOT EXISTS skill_catalog_root ON skill_catalog(root);
    CREATE VIRTUAL TABLE IF NOT EXISTS skill_fts USING fts5(name, description, category, headings, body);
    CREATE VIRTUAL TABLE IF NOT EXISTS skill_fts_vocab USING fts5vocab(skill_fts, row);
    CREATE TABLE IF NOT EXISTS skill_scan_cache (
        hash TEXT NOT NULL,
        scanner TEXT NOT NULL,
        verdict TEXT NOT NULL,
        reasons TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (hash, scanner)
    );
    """,
    # 8: chat gateways: which grove session each platform chat continues
    """
    CREATE TABLE IF NOT EXISTS gateway_chats (
        platform TEXT NOT NULL,
        chat_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (platform, chat_id)
    );
    """,
    # 9: skills hub installs (where each installed skill came from: source, ref, commit, content hash) and the
    # sessions `grove import` brought in from other agents (so a second run does not copy them twice)
    """
    CREATE TABLE IF NOT EXISTS installed_skills (
        name TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        kind TEXT NOT NULL,
        ref TEXT,
        commit_id TEXT,
        path_in_source TEXT NOT NULL DEFAULT '',
        content_hash TEXT NOT NULL,
        installed_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        removed_at REAL
    );
    CREATE TABLE IF NOT EXISTS imported_sessions (
        origin TEXT NOT NULL,
        origin_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        imported_at REAL NOT NULL,
        PRIMARY KEY (origin, origin_id)
    );
    """,
    # 10: grove serve: client API keys (only a sha256 of each key is kept) and which grove session each client's
    # conversation continues
    """
    CREATE TABLE IF NOT EXISTS serve_keys (
        name TEXT PRIMARY KEY,
        key_id TEXT NOT NULL UNIQUE,
        key_hash TEXT NOT NULL,
        rate_per_minute REAL,
        created_at REAL NOT NULL,
        last_used_at REAL
    );
    CREATE TABLE IF NOT EXISTS serve_conversations (
        key_name TEXT NOT NULL,
        conversation TEXT NOT NULL,
        session_id TEXT NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (key_name, conversation)
    );
    """,
    # 11: cron: scheduled jobs (the next run is claimed by compare-and-set on next_run_at, under a lease, before
    # the job runs: at most once per slot) and each run's session, status and output summary
    """
    CREATE TABLE IF NOT EXISTS cron_jobs (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        schedule TEXT NOT NULL,
        prompt TEXT NOT NULL,
        deliver TEXT,
        model TEXT,
        toolsets TEXT,
        workspace TEXT,
        enabled INTEGER NOT NULL DEFAULT 1,
        next_run_at REAL,
        lease_owner TEXT,
        lease_until REAL,
        run_count INTEGER NOT NULL DEFAULT 0,
        last_run_at REAL,
        created_at REAL NOT NULL,
        created_by TEXT
    );
    CREATE INDEX IF NOT EXISTS cron_jobs_due ON cron_jobs (enabled, next_run_at);
    CREATE TABLE IF NOT EXISTS cron_runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id TEXT NOT NULL,
        scheduled_for REAL NOT NULL,
        started_at REAL NOT NULL,
        finished_at REAL,
        owner TEXT NOT NULL,
        status TEXT NOT NULL,
        session_id TEXT,
        output TEXT,
        error TEXT,
        delivery TEXT
    );
    CREATE INDEX IF NOT EXISTS cron_runs_job ON cron_runs (job_id, id);
    """,
    # 12: grove serve: a key owns the sessions it ran (a plain key sees only those and their approvals; an admin
    # key sees all). Keys made before this are not admins (least privilege: `grove serve keys admin NAME` makes
    # one); what they ran so far is theirs, from serve_conversations
    """
    ALTER TABLE serve_keys ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE IF NOT EXISTS serve_session_owners (
        session_id TEXT PRIMARY KEY,
        key_name TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS serve_session_owners_key ON serve_session_owners (key_name);
    INSERT OR IGNORE INTO serve_session_owners (session_id, key_name)
        SELECT session_id, key_name FROM serve_conversations;
    """,
    # 13: structured message content (images): `parts` holds a message's content parts as JSON, so a resumed
    # session gets them back as parts; `content` keeps only their text, so the full-text indexes never hold base64
    """
    ALTER TABLE messages ADD COLUMN parts TEXT;
    """,
    # 14: claims checked against evidence: each claim an answer made about its own work, with the verdict the
    # turn's tool record gave it (supported, contradicted, unverifiable) and why
    """
    CREATE TABLE claim_verdicts (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        message_id INTEGER,
        claim TEXT NOT NULL,
        kind TEXT NOT NULL,
        target TEXT,
        verdict TEXT NOT NULL,
        reason TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE INDEX claim_verdicts_session ON claim_verdicts (session_id, message_id);
    """,
    # 15 (message embeddings): semantic session search (grove.embeddings). One vector per user/assistant message,
    # computed in the background after turns, and per model how far the messages have been embedded
    """
    CREATE TABLE IF NOT EXISTS message_embeddings (
        message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
        created_at REAL NOT NULL,
        vector BLOB NOT NULL
    );
    CREATE TABLE IF NOT EXISTS embedding_state (
        model TEXT PRIMARY KEY,
        last_message_id INTEGER NOT NULL
    );
    """,
    # 16 (session backends): where a session's tools acted (local, ssh:HOST, container:IMAGE), for the dashboard;
    # IF NOT EXISTS: a database that made it on first use before this migration keeps its rows
    """
    CREATE TABLE IF NOT EXISTS session_backends (
        session_id TEXT PRIMARY KEY,
        backend TEXT NOT NULL
    );
    """,
]

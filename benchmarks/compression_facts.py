"""The planted facts and the distractors of benchmarks/compression_session.py: many phrasings per kind."""

from __future__ import annotations

CONSTRAINTS = [
    "Never touch the production database from this machine.",
    "Please don't add new third-party dependencies.",
    "Keep the public API on port {n4}, the load balancer expects it.",
    "The nightly batch has to finish within {n2} minutes.",
    "Tests must not call the real Stripe API.",
    "I'd rather you didn't reformat files you aren't changing.",
    "Stick to Python 3.11 syntax, no match statements.",
    "All timestamps in UTC please.",
    "No print statements in library code; use the logger.",
    "Migrations go in a separate PR from the code changes.",
    "Under no circumstances push to main directly.",
    "Our staging tenant id is {n7}; never use production ids in tests.",
    "Limit the worker pool to {n3} connections.",
    "Leave the legacy v1 endpoints alone until March.",
    "Secrets only come from Vault, not from env files.",
    "Keep each function under {n2} lines.",
    "Error messages shown to users must not include stack traces.",
    "Do not bump the minimum supported Node version ({n2}).",
    "Ask me before touching invoice numbering, the billing team owns it.",
    "The CSV export has to stay byte-compatible with what finance imports.",
    "Avoid global state in the new module.",
    "Spend no more than ${n3} a month on the new queue.",
    "Feature flags default to off.",
    "Retries need jittered backoff, capped at {n2} seconds.",
    "We can't use GPL code in this repo.",
    "Logs should never contain email addresses.",
    "Coverage for new code stays above {n2}%.",
    "Whatever you do, don't restart the primary during business hours.",
]
REQUESTS = [
    ("Add a --dry-run flag to the invoice backfill script.", "--dry-run flag"),
    ("Can you find out why the refund webhook fires twice?", "refund webhook fires twice"),
    ("Next: make the quota banner dismissible for 24 hours.", "quota banner dismissible"),
    ("Port the tenant export from pandas to the csv module.", "tenant export from pandas"),
    ("Write a regression test for the currency rounding bug.", "currency rounding bug"),
    ("Wire the new ledger into the nightly reconciliation job.", "nightly reconciliation job"),
    ("Could you split the auth middleware into its own package?", "auth middleware into its own package"),
    ("Rename the `acct_mgr` module to `accounts` everywhere.", "acct_mgr"),
]
DECISIONS = [
    (
        "We decided to use LMDB instead of Redis for the session cache, to drop a network hop.",
        ["LMDB", "Redis"],
    ),
    (
        "Going with the outbox table for refunds — nothing calls Stripe directly any more.",
        ["outbox", "Stripe"],
    ),
    ("I pinned protobuf to 4.25 until the gRPC upgrade lands.", ["protobuf", "4.25"]),
    (
        "Tenant deletion is now soft: a tombstone flag for 30 days, then a purge job removes the rows.",
        ["tombstone", "30 days"],
    ),
    (
        "New password hashes use Argon2id; existing bcrypt hashes are upgraded at the next login.",
        ["Argon2id", "bcrypt"],
    ),
    ("The quota banner shows at 80% usage, not 90%.", ["quota banner", "80%"]),
    ("The new ledger sits behind the LEDGER_V2 flag and ramps 5% a day.", ["LEDGER_V2", "5%"]),
    ("Python 3.9 support is dropped in the next minor release.", ["Python 3.9", "next minor"]),
    ("Webhook delivery moves to NATS JetStream; SQS is out.", ["JetStream", "SQS"]),
    (
        "Migrations run in a separate deploy step from now on, never on app boot.",
        ["separate deploy step", "boot"],
    ),
    ("So the plan: batch the invoice writes in groups of 500 and commit once per batch.", ["500", "invoice"]),
    (
        "Root cause: the cron job and the API both wrote last_seen_at without a lock.",
        ["last_seen_at", "lock"],
    ),
    (
        "I'll keep the retry logic in the client wrapper rather than in each call site.",
        ["client wrapper", "retry"],
    ),
    (
        "Let's not cache the pricing table at all; it changes too often to be worth it.",
        ["pricing table", "cache"],
    ),
    (
        "The idempotency key is the hash of (tenant_id, invoice_number), stored for 72 hours.",
        ["idempotency key", "72 hours"],
    ),
    ("uvloop stays out: it broke the debugger on Windows.", ["uvloop", "debugger"]),
    ("The report job reads from the replica, not the primary.", ["report job", "replica"]),
    (
        "Pagination is cursor-based now; offset pagination was timing out past page 400.",
        ["cursor-based", "400"],
    ),
    ("Chose ruff over flake8 and isort: one tool, same rules.", ["ruff", "flake8"]),
    ("For the export I went with streaming CSV writes so memory stays flat.", ["streaming CSV", "memory"]),
    (
        "Rate limits are per API key, 600 requests a minute, enforced at the gateway.",
        ["600 requests", "gateway"],
    ),
    ("Dates are stored as UTC and converted only in the templates.", ["UTC", "templates"]),
    ("Feature flags now live in LaunchDarkly; the YAML flag file is deprecated.", ["LaunchDarkly", "YAML"]),
    ("The search index is rebuilt nightly at 02:30 instead of on every write.", ["02:30", "search index"]),
    ("The cache is keyed by tenant and locale.", ["keyed by tenant and locale"]),
    ("Sessions expire after a week of inactivity.", ["Sessions expire after a week"]),
    (
        "Invoices are immutable once sent; corrections become credit notes.",
        ["immutable once sent", "credit notes"],
    ),
    ("The admin page stays server-rendered.", ["admin page stays server-rendered"]),
    ("Refunds will go through the outbox table from here on.", ["Refunds will go through the outbox"]),
]
FINDINGS = [
    ("The p95 latency dropped from 840 ms to {n3} ms after adding the index.", ["p95", "{n3} ms"]),
    ("There are {n4} invoices with a null tenant_id in staging.", ["{n4}", "tenant_id"]),
    ("Memory peaked at {n3} MiB during the backfill.", ["Memory peaked", "{n3} MiB"]),
    ("The flaky test failed {n1} times in the last 50 CI runs.", ["flaky test", "{n1} times"]),
    ("Cold start takes {n1}.{n1} s on the smallest instance.", ["Cold start", "{n1}.{n1} s"]),
    ("The queue backlog is at {n5} messages right now.", ["backlog", "{n5}"]),
    ("Coverage of the billing package is {n2}.{n1}%.", ["billing package", "{n2}.{n1}%"]),
    ("About {n2}% of the refunds in the sample were partial.", ["{n2}%", "partial"]),
]
ERRORS = [
    (
        'sqlalchemy.exc.IntegrityError: duplicate key value violates unique constraint "uq_invoice_{w}"',
        ["IntegrityError", "uq_invoice_{w}"],
    ),
    ("ModuleNotFoundError: No module named '{w}_client'", ["ModuleNotFoundError", "{w}_client"]),
    ("KeyError: 'tenant_{w}'", ["KeyError", "tenant_{w}"]),
    (
        'psql: error: connection to server at "10.0.{n1}.7", port 5432 failed: timeout expired',
        ["10.0.{n1}.7", "timeout expired"],
    ),
    ("fatal: refusing to merge unrelated histories", ["refusing to merge unrelated histories"]),
    ("npm ERR! code ERESOLVE unable to resolve dependency tree for @{w}/ui", ["ERESOLVE", "@{w}/ui"]),
    (
        "TypeError: unsupported operand type(s) for +: 'Decimal' and 'float' in {w}_total",
        ["TypeError", "{w}_total"],
    ),
]
WORDS = ["ledger", "refund", "quota", "tenant", "invoice", "payout", "webhook", "export", "audit", "pricing"]
DIRS = ["services/billing", "lib/payments", "web/src/hooks", "pkg/auth", "scripts", "infra/jobs", "apps/api"]
CHATTER = [
    "Done: {m} now handles the empty case.",
    "That's in place; {m} reads its settings once at start-up.",
    "Updated {m} and its callers.",
    "Looks good now, moving on.",
    "The change to {m} is small, {n2} lines.",
    "I read the file; nothing surprising there.",
    "Fixed the import order in {m} while I was there.",
]
NARRATION = ["Let me look at {p}.", "I'll read {p} first.", "Checking {p}.", "Now let me run the tests.", ""]
CONFIG_KEYS = [
    "timeout_seconds", "max_connections", "pool_size", "retry_limit", "batch_size", "log_level", "region",
    "page_size", "cache_ttl_seconds", "worker_count", "queue_name", "max_body_kb", "idle_timeout", "port",
    "replicas", "burst", "window_seconds", "sample_rate", "compression", "tls_min_version",
]  # fmt: skip
CONSTANTS = [
    "MAX_RETRY_BUDGET", "SHARD_COUNT", "KAFKA_PARTITIONS", "DEFAULT_CURRENCY", "LEGACY_CUTOFF_DATE",
    "ROUNDING_MODE", "MAX_PAGE_SIZE", "HEARTBEAT_INTERVAL", "INVOICE_PREFIX", "GRACE_PERIOD_DAYS",
]  # fmt: skip
METRICS = ["throughput", "p99_latency_ms", "error_rate", "rows_scanned", "cache_hit_ratio", "queue_depth"]

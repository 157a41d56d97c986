"""Session search over a large store: fills state.db with N messages, times varied full-text queries, then plants the
paraphrase corpus (benchmarks/data/session_search/paraphrases.json: a session and a query saying the same thing in
other words) and measures recall@5 and p50 latency of `session_search`'s hybrid search without and with embeddings.

Usage: python benchmarks/session_search.py [--messages 100000] [--queries 200]
(the embedding half needs the `[embeddings]` extra; without it, it reports full-text only)
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from grove.embeddings.hybrid import search_sessions
from grove.embeddings.indexer import fill as embed_all
from grove.embeddings.model import load_embedder
from grove.store.sessions import SessionStore

CORPUS = Path(__file__).parent / "data" / "session_search" / "paraphrases.json"

WORDS = [
    "deploy",
    "build",
    "test",
    "docker",
    "kubernetes",
    "cluster",
    "database",
    "postgres",
    "migration",
    "index",
    "query",
    "latency",
    "cache",
    "redis",
    "invoice",
    "customer",
    "report",
    "csv",
    "column",
    "revenue",
    "average",
    "chart",
    "plot",
    "python",
    "script",
    "function",
    "class",
    "module",
    "error",
    "traceback",
    "timeout",
    "retry",
    "network",
    "request",
    "response",
    "token",
    "model",
    "prompt",
    "skill",
    "memory",
    "session",
    "file",
    "folder",
    "config",
    "yaml",
    "json",
    "parse",
    "write",
    "read",
    "patch",
    "commit",
    "branch",
    "merge",
    "review",
    "release",
    "version",
    "bug",
    "fix",
    "feature",
    "user",
    "email",
    "schedule",
    "meeting",
    "budget",
    "forecast",
    "quarter",
    "sales",
    "marketing",
    "design",
    "layout",
    "font",
    "colour",
    "image",
    "resize",
    "backup",
    "restore",
    "sync",
    "upload",
    "download",
    "server",
    "client",
    "api",
    "endpoint",
    "auth",
    "login",
    "password",
    "secret",
    "key",
    "cert",
    "sourdough",
    "recipe",
    "garden",
    "travel",
    "flight",
    "hotel",
    "itinerary",
    "invoice",
    "tax",
    "receipt",
    "contract",
    "lease",
]
CJK = ["数据库迁移", "部署服务器", "会议记录", "季度报告", "错误日志"]


def fill(store: SessionStore, n_messages: int, rng: random.Random) -> None:
    per_session = 40
    db = store.db
    with db.transaction() as c:
        for s in range(n_messages // per_session):
            sid = f"bench-{s:06d}"
            c.execute(
                "INSERT INTO sessions (id, title, model, created_at, updated_at) VALUES (?, ?, 'script', ?, ?)",
                (sid, " ".join(rng.choices(WORDS, k=4)), s, s),
            )
            rows = []
            for i in range(per_session):
                words = rng.choices(WORDS, k=rng.randint(8, 60))
                if rng.random() < 0.02:
                    words.append(rng.choice(CJK))
                rows.append((sid, "user" if i % 2 == 0 else "assistant", " ".join(words), s + i / 100))
            c.executemany(
                "INSERT INTO messages (session_id, role, content, created_at) VALUES (?, ?, ?, ?)", rows
            )


def plant(store: SessionStore) -> list[tuple[str, str]]:
    """The paraphrase sessions, said after the filler; (query, the session it should find)."""
    pairs = []
    for case in json.loads(CORPUS.read_text(encoding="utf-8")):
        sid = store.create_session("script", title=case["title"])
        for i, text in enumerate(case["messages"]):
            store.add_message(sid, {"role": "user" if i % 2 == 0 else "assistant", "content": text})
        pairs.append((case["query"], sid))
    return pairs


def recall_and_p50(store: SessionStore, pairs: list[tuple[str, str]], semantic: bool) -> tuple[float, float]:
    search_sessions(store, pairs[0][0], semantic=semantic)  # warm: caches, the model, the vector matrix
    found, times = 0, []
    for query, sid in pairs:
        t = time.perf_counter()
        hits = search_sessions(store, query, limit=5, semantic=semantic)
        times.append((time.perf_counter() - t) * 1000)
        found += any(h.session_id == sid for h in hits)
    return found / len(pairs), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(7)
    path = Path(tempfile.mkdtemp(prefix="grove-search-")) / "state.db"
    store = SessionStore.open(path)
    start = time.perf_counter()
    fill(store, args.messages, rng)
    fill_s = time.perf_counter() - start
    queries = []
    for i in range(args.queries):
        kind = i % 4
        if kind == 0:
            queries.append(rng.choice(WORDS))
        elif kind == 1:
            queries.append(" ".join(rng.sample(WORDS, 2)))
        elif kind == 2:
            queries.append(rng.choice(WORDS)[1:6])  # substring, via the trigram index
        else:
            queries.append(rng.choice(CJK))
    store.search(queries[0])  # warm the page cache
    times = []
    hits = 0
    for q in queries:
        t = time.perf_counter()
        hits += bool(store.search(q, limit=10))
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1]
    print(
        f"{args.messages} messages filled in {fill_s:.1f} s; {len(queries)} queries "
        f"(words, word pairs, substrings, CJK), {hits} with hits"
    )
    print(f"median {statistics.median(times):.2f} ms, p95 {p95:.2f} ms, max {times[-1]:.2f} ms")
    pairs = plant(store)
    r_words, p50_words = recall_and_p50(store, pairs, semantic=False)
    print(f"paraphrase queries: {len(pairs)}; full-text only: recall@5 {r_words:.2f}, p50 {p50_words:.1f} ms")
    embedder = load_embedder()
    line = (
        f"messages={args.messages} search_median_ms={statistics.median(times):.2f} search_p95_ms={p95:.2f} "
        f"queries={len(queries)} hit_rate={hits / len(queries):.2f} paraphrases={len(pairs)} "
        f"recall5_fulltext={r_words:.2f} p50_ms_fulltext={p50_words:.1f}"
    )
    if embedder is None:
        print("no [embeddings] extra: full-text only")
        print(line + " embeddings=absent")
        return
    t = time.perf_counter()
    embedded = embed_all(store, embedder)
    embed_s = time.perf_counter() - t
    r_both, p50_both = recall_and_p50(store, pairs, semantic=True)
    print(f"embedded {embedded} messages in {embed_s:.1f} s ({embedder.name})")
    print(f"with embeddings: recall@5 {r_both:.2f}, p50 {p50_both:.1f} ms")
    # the 40 topical sessions alone, each query's 39 others its only distractors (no random-word filler, whose
    # look-alike session means favour the session-mean ranking)
    alone = SessionStore.open(path.parent / "alone.db")
    alone_pairs = plant(alone)
    r_alone_words = recall_and_p50(alone, alone_pairs, semantic=False)[0]
    r_alone_both = recall_and_p50(alone, alone_pairs, semantic=True)[0]
    print(f"the topical sessions alone: recall@5 full-text {r_alone_words:.2f}, hybrid {r_alone_both:.2f}")
    print(
        line + f" recall5_hybrid={r_both:.2f} p50_ms_hybrid={p50_both:.1f} embedded={embedded} "
        f"embed_s={embed_s:.1f} alone_recall5_fulltext={r_alone_words:.2f} alone_recall5_hybrid={r_alone_both:.2f} "
        f"model={embedder.name}"
    )


if __name__ == "__main__":
    main()

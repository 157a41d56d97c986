"""Message vectors in state.db (`message_embeddings`, `embedding_state`) and the nearest-neighbour look-up over them.

Stored as float16 (512 bytes a message); each process keeps one matrix per database in memory, topped up with the
rows added since it last looked, with each session's mean vector beside it, so a query is two matrix products (a
few ms at 100K messages).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from grove.store.db import Database

if TYPE_CHECKING:
    import numpy as np


def cursor(db: Database, model: str) -> int:
    """The id up to which messages were embedded with `model`; vectors of any other model are dropped first."""
    with db.lock:
        rows = db.conn.execute("SELECT model, last_message_id FROM embedding_state").fetchall()
    if any(r["model"] != model for r in rows):
        with db.transaction() as c:
            c.execute("DELETE FROM message_embeddings")
            c.execute("DELETE FROM embedding_state")
        _caches.pop(str(db.path), None)
        return 0
    return int(rows[0]["last_message_id"]) if rows else 0


def save(db: Database, model: str, rows: list[tuple[int, float, Any]], seen: int) -> None:
    """One batch of (message id, created_at, vector) and the new cursor, in one transaction."""
    import numpy as np

    with db.transaction() as c:
        c.executemany(
            "INSERT OR REPLACE INTO message_embeddings (message_id, created_at, vector) VALUES (?, ?, ?)",
            [(i, t, np.asarray(v, dtype=np.float16).tobytes()) for i, t, v in rows],
        )
        c.execute(
            "INSERT INTO embedding_state (model, last_message_id) VALUES (?, ?) ON CONFLICT (model)"
            " DO UPDATE SET last_message_id = max(last_message_id, excluded.last_message_id)",
            (model, seen),
        )


def count(db: Database) -> int:
    with db.lock:
        return int(db.conn.execute("SELECT count(*) FROM message_embeddings").fetchone()[0])


@dataclass
class Nearest:
    """What a query's vector is closest to: messages, and sessions by the mean of their messages' vectors."""

    messages: list[tuple[int, float]]  # (message id, cosine), best first
    # (session id, how far its mean's cosine stands above all sessions' in standard deviations, its closest
    # message), best first: a mean's raw cosine shrinks with the session's length, its standing does not
    sessions: list[tuple[str, float, int]]


SessionsOf = Callable[[int, int], dict[int, str]]  # (after id, up to id) -> each message id's session


@dataclass
class _Matrix:
    last_id: int = 0
    ids: Any = None  # numpy arrays, one row per embedded message
    times: Any = None
    vectors: Any = None
    codes: Any = None  # each row's session, as an index into `names`
    names: list[str] = field(default_factory=list)
    code_of: dict[str, int] = field(default_factory=dict)
    sums: Any = None  # per session: the sum of its vectors; `means` is it normalised
    means: Any = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def top_up(self, db: Database, dim: int, sessions_of: SessionsOf) -> None:
        import numpy as np

        with db.lock:
            rows = db.conn.execute(
                "SELECT message_id, created_at, vector FROM message_embeddings WHERE message_id > ?"
                " ORDER BY message_id",
                (self.last_id,),
            ).fetchall()
        if not rows:
            return
        seen = int(rows[-1][0])
        owner = sessions_of(self.last_id, seen)
        rows = [r for r in rows if r[0] in owner]  # a message deleted since it was embedded
        if not rows:
            self.last_id = seen
            return
        for r in rows:
            self.code_of.setdefault(owner[r[0]], len(self.code_of))
        self.names = sorted(self.code_of, key=self.code_of.__getitem__)
        ids = np.fromiter((r[0] for r in rows), np.int64, len(rows))
        times = np.fromiter((r[1] for r in rows), np.float64, len(rows))
        codes = np.fromiter((self.code_of[owner[r[0]]] for r in rows), np.int64, len(rows))
        block = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float16).reshape(len(rows), dim)
        block = block.astype(np.float32)
        first = self.ids is None
        self.ids = ids if first else np.concatenate([self.ids, ids])
        self.times = times if first else np.concatenate([self.times, times])
        self.codes = codes if first else np.concatenate([self.codes, codes])
        self.vectors = block if first else np.concatenate([self.vectors, block])
        sums = np.zeros((len(self.names), dim), dtype=np.float32)
        if self.sums is not None:
            sums[: len(self.sums)] = self.sums
        np.add.at(sums, codes, block)
        self.sums = sums
        self.means = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-9)
        self.last_id = seen


_caches: dict[str, _Matrix] = {}
_caches_lock = threading.Lock()


def nearest(
    db: Database,
    query: np.ndarray,
    k: int,
    sessions_of: SessionsOf,
    after: float | None = None,
    before: float | None = None,
) -> Nearest:
    """The k messages, and the k sessions, whose vectors are closest to `query` (cosine); messages said within
    [after, before) only, and no sessions when a span is given (a session's mean spans all its time)."""
    import numpy as np

    with _caches_lock:
        matrix = _caches.setdefault(str(db.path), _Matrix())
    q = query.astype(np.float32).ravel()
    with matrix.lock:
        matrix.top_up(db, int(q.shape[0]), sessions_of)
        if matrix.ids is None:
            return Nearest([], [])
        ids, times, vectors, codes = matrix.ids, matrix.times, matrix.vectors, matrix.codes
        names, means = list(matrix.names), matrix.means
    # einsum's own loop, not BLAS: a matrix-vector product through OpenBLAS's thread pool costs ~20 ms of thread
    # hand-offs on a busy 2-core machine whatever the size; einsum is 0.6 ms at 5K rows, memory-bound at 100K
    scores = np.einsum("ij,j->i", vectors, q)
    spanned = after is not None or before is not None
    if spanned:
        keep = np.ones(len(ids), dtype=bool)
        if after is not None:
            keep &= times >= after
        if before is not None:
            keep &= times < before
        scores = np.where(keep, scores, -np.inf)
    messages = [(int(ids[i]), float(scores[i])) for i in _top(scores, k) if np.isfinite(scores[i])]
    sessions: list[tuple[str, float, int]] = []
    if not spanned:
        by_mean = np.einsum("ij,j->i", means, q)
        spread = float(by_mean.std()) or 1.0
        standing = (by_mean - float(by_mean.mean())) / spread
        for c in _top(by_mean, k):
            rows = np.flatnonzero(codes == c)
            sessions.append((names[c], float(standing[c]), int(ids[rows[np.argmax(scores[rows])]])))
    return Nearest(messages, sessions)


def _top(scores: Any, k: int) -> Any:
    import numpy as np

    k = min(k, len(scores))
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top])]

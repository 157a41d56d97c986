"""Message vectors in state.db (`message_embeddings`, `embedding_state`) and the nearest-neighbour look-up over them.

Stored as float16 (512 bytes a message); each process keeps one matrix per database in memory, topped up with the
rows added since it last looked, so a query is one matrix product (a few ms at 100K messages).
"""

from __future__ import annotations

import threading
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
class _Matrix:
    last_id: int = 0
    ids: list[Any] = field(default_factory=list)  # numpy chunks, joined on use
    times: list[Any] = field(default_factory=list)
    vectors: list[Any] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def top_up(self, db: Database, dim: int) -> None:
        import numpy as np

        with db.lock:
            rows = db.conn.execute(
                "SELECT message_id, created_at, vector FROM message_embeddings WHERE message_id > ?"
                " ORDER BY message_id",
                (self.last_id,),
            ).fetchall()
        if not rows:
            return
        self.ids = [np.concatenate([*self.ids, np.fromiter((r[0] for r in rows), np.int64, len(rows))])]
        self.times = [np.concatenate([*self.times, np.fromiter((r[1] for r in rows), np.float64, len(rows))])]
        block = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float16).reshape(len(rows), dim)
        self.vectors = [np.concatenate([*self.vectors, block.astype(np.float32)])]
        self.last_id = int(rows[-1][0])


_caches: dict[str, _Matrix] = {}
_caches_lock = threading.Lock()


def nearest(
    db: Database, query: np.ndarray, k: int, after: float | None = None, before: float | None = None
) -> list[tuple[int, float]]:
    """The k message ids whose vectors are closest to `query` (cosine), said within [after, before)."""
    import numpy as np

    with _caches_lock:
        matrix = _caches.setdefault(str(db.path), _Matrix())
    with matrix.lock:
        matrix.top_up(db, int(query.shape[-1]))
        if not matrix.ids:
            return []
        ids, times, vectors = matrix.ids[0], matrix.times[0], matrix.vectors[0]
    # einsum's own loop, not BLAS: a matrix-vector product through OpenBLAS's thread pool costs ~20 ms of thread
    # hand-offs on a busy 2-core machine whatever the size; einsum is 0.6 ms at 5K rows, memory-bound at 100K
    scores = np.einsum("ij,j->i", vectors, query.astype(np.float32).ravel())
    if after is not None or before is not None:
        keep = np.ones(len(ids), dtype=bool)
        if after is not None:
            keep &= times >= after
        if before is not None:
            keep &= times < before
        scores = np.where(keep, scores, -np.inf)
    k = min(k, len(ids))
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.argsort(-scores[top])]
    return [(int(ids[i]), float(scores[i])) for i in top if np.isfinite(scores[i])]

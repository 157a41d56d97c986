"""Embedding new messages incrementally: `fill` embeds what was said since the cursor, and `kick` has one daemon
thread per process do it in the background after a turn, so a turn never waits for the model.
"""

from __future__ import annotations

import logging
import queue
import threading
from pathlib import Path

from grove.embeddings import vectors
from grove.embeddings.model import Embedder, available, load_embedder
from grove.store.sessions import SessionStore

BATCH = 256
log = logging.getLogger(__name__)


def fill(store: SessionStore, embedder: Embedder, most: int | None = None) -> int:
    """Embed the messages said since the cursor, oldest first, `most` at the most (None: all); returns how many."""
    done = 0
    while most is None or done < most:
        last = vectors.cursor(store.db, embedder.name)
        step = BATCH if most is None else max(1, min(BATCH, most - done))
        rows, seen = store.texts_after(last, step)
        if seen <= last:
            break
        found = embedder.embed([text for _, _, text in rows])
        vectors.save(
            store.db, embedder.name, [(i, t, v) for (i, t, _), v in zip(rows, found, strict=True)], seen
        )
        done += len(rows)
    return done


_jobs: queue.Queue[str] = queue.Queue()
_worker: threading.Thread | None = None
_worker_lock = threading.Lock()


def kick(db_path: Path | str) -> None:
    """Ask the background worker to embed what state.db at `db_path` gained; returns at once. A no-op without the
    `[embeddings]` extra or for an in-memory database."""
    global _worker
    path = str(db_path)
    if path == ":memory:" or path.startswith("file:") or not available():
        return
    _jobs.put(path)
    with _worker_lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_work, name="grove-embeddings", daemon=True)
            _worker.start()


def _work() -> None:
    while True:
        path = _jobs.get()
        while not _jobs.empty():  # many kicks for one database are one fill
            nxt = _jobs.get()
            if nxt != path:
                _jobs.put(nxt)
                break
        if not Path(path).exists():  # a home removed meanwhile: never create a database here
            continue
        try:
            embedder = load_embedder()
            if embedder is None:
                return
            store = SessionStore.open(path)
            try:
                fill(store, embedder)
            finally:
                store.db.close()
        # background work: a failure costs only meaning recall until the next kick
        except Exception as e:
            log.debug("embedding %s failed: %s", path, e)

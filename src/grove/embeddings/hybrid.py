"""Session search for every entrance: full-text (FTS5) and, with the `[embeddings]` extra, meaning (vectors), fused by
reciprocal rank; after/before/exclude filters; one hit per session, best first.

The current session is searched too, for what already left its context (compressed away): what the model still
sees needs no recall.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from datetime import datetime

from grove.embeddings import vectors
from grove.embeddings.indexer import fill, kick
from grove.embeddings.model import load_embedder
from grove.errors import GroveError
from grove.store.sessions import SearchHit, SessionStore

RRF_K = 60  # the usual reciprocal-rank constant: a list's top ranks count, its tail barely
CANDIDATES = 20  # full-text messages before filters and one-per-session (each costs an FTS snippet)
NEAREST = 50  # meaning candidates (cheap: one product over the vector matrix)
# below this cosine a "meaning" hit is noise: 0.5% of unrelated messages reach it, 44% of related ones
# (the paraphrase corpus of benchmarks/session_search.py); the words side finds the rest
MIN_SIMILARITY = 0.3
# a session by its mean vector: counted when it stands 2 standard deviations above all sessions' means, and weighs
# double (a whole exchange's topic is the better cue: recall@5 0.53 -> 0.78 on the paraphrases among 20K messages)
MIN_SESSION_STANDING = 2.0
SESSION_WEIGHT = 2.0
CATCH_UP = 256  # messages a search embeds itself (the rest is the background worker's), ~30 ms
SNIPPET_CHARS = 160


class BadWhen(GroveError, ValueError):
    """An after/before value that is neither a date nor an age."""


_AGE = re.compile(r"^(\d+)\s*([mhdw])$")
_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_when(text: str | None, now: float | None = None) -> float | None:
    """'2026-05-01', '2026-05-01T14:30' (local time) or an age ('90m', '12h', '3d', '2w' ago) as a timestamp."""
    if text is None or not str(text).strip():
        return None
    value = str(text).strip()
    age = _AGE.match(value.lower())
    if age:
        return (now if now is not None else time.time()) - int(age.group(1)) * _UNITS[age.group(2)]
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise BadWhen(
            f"{value!r} is not a date or an age: give YYYY-MM-DD, YYYY-MM-DDTHH:MM, or an age such as 12h, 3d, 2w"
        ) from None


def semantic_ready() -> bool:
    """Whether meaning search is on here (the `[embeddings]` extra is installed)."""
    from grove.embeddings.model import available

    return available()


def search_sessions(
    store: SessionStore,
    query: str,
    *,
    limit: int = 5,
    after: float | None = None,
    before: float | None = None,
    exclude: Iterable[str] = (),
    current_session: str | None = None,
    semantic: bool = True,
) -> list[SearchHit]:
    """Best first, one hit per session. `exclude`: words whose messages are left out. `current_session`: its
    messages still in the active context are left out (the model sees them), and when a serve key ran it, only
    that key's sessions are searched (one client never recalls another's)."""
    if not query.strip():
        return []
    scope = store.sessions_like_owner(current_session) if current_session else None
    wider = 1 if scope is None else 10  # other keys' messages take candidate places before they are filtered
    words = store.search(query, limit=CANDIDATES * wider, per_session=2, after=after, before=before)
    fused: dict[int, float] = {}
    how: dict[int, set[str]] = {}
    for rank, hit in enumerate(words):
        fused[hit.message_id] = fused.get(hit.message_id, 0.0) + 1 / (RRF_K + rank)
        how.setdefault(hit.message_id, set()).add("words")
    embedder = load_embedder() if semantic else None
    if embedder is not None:
        if fill(store, embedder, most=CATCH_UP) >= CATCH_UP:
            kick(store.db.path)  # a backlog (an older store, a long turn): the rest in the background
        query_vector = embedder.embed([query])[0]
        near = vectors.nearest(
            store.db, query_vector, NEAREST * wider, store.session_ids_between, after, before
        )
        # two lists by meaning: messages, and sessions by their mean (what a whole exchange was about), each
        # session standing for its closest message
        by_message = [mid for mid, score in near.messages if score >= MIN_SIMILARITY]
        by_session = [mid for _, score, mid in near.sessions if score >= MIN_SESSION_STANDING]
        for ranked, weight in ((by_message, 1.0), (by_session, SESSION_WEIGHT)):
            for rank, mid in enumerate(ranked):
                fused[mid] = fused.get(mid, 0.0) + weight / (RRF_K + rank)
                how.setdefault(mid, set()).add("meaning")
    rows = store.hit_rows(list(fused))
    banned = [w.lower() for w in exclude if w.strip()]
    snippets = {h.message_id: h.snippet for h in words}
    best: dict[str, SearchHit] = {}
    for mid in sorted(fused, key=lambda m: -fused[m]):
        row = rows.get(mid)
        if row is None or row["session_id"] in best or (scope is not None and row["session_id"] not in scope):
            continue
        text = row["content"] or ""
        if banned and any(w in text.lower() for w in banned):
            continue
        if current_session and row["session_id"] == current_session and row["active"]:
            continue
        kinds = how[mid]
        best[row["session_id"]] = SearchHit(
            session_id=row["session_id"],
            message_id=mid,
            role=row["role"],
            snippet=snippets.get(mid) or _trim(text),
            score=fused[mid],
            session_title=row["title"],
            created_at=row["created_at"],
            matched="both" if len(kinds) == 2 else next(iter(kinds)),
        )
        if len(best) >= limit:
            break
    return list(best.values())


def _trim(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1] + "…"

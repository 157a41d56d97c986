"""The dashboard's routes: pages rendered with Jinja2 (autoescaped), a little plain JS for polling (no CDN, no
build step), and POST actions (pin, rollback, approve/deny) behind the login and the CSRF check."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from grove.serve.dashboard import data
from grove.serve.dashboard.auth import COOKIE, LIFETIME, Login, Logins, csrf_ok, safe_next, same_origin
from grove.serve.state import ServeState

try:  # FastAPI's Form() needs python-multipart; without it this import fails, so serve runs the API alone
    import python_multipart  # noqa: F401
except ImportError:
    import multipart  # noqa: F401  # older releases of python-multipart

HERE = Path(__file__).parent
STATIC = {"dashboard.css": "text/css", "dashboard.js": "text/javascript", "favicon.svg": "image/svg+xml"}
# no inline script or style, no framing (an approve button must not be clickjacked), nothing from elsewhere
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self'; script-src 'self'; style-src 'self'; "
    "frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
PAGES = [
    ("/sessions", "sessions"),
    ("/skills", "skills"),
    ("/memory", "memory"),
    ("/kanban", "kanban"),
    ("/evolve", "evolution"),
    ("/approvals", "approvals"),
    ("/gateways", "gateways"),
    ("/settings", "settings"),
    ("/spend", "spend"),
]


def _when(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts)) if ts else "-"


def build_router(state: ServeState) -> APIRouter:
    from grove.runtime.assemble import open_store

    env = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True))
    env.filters["when"] = _when
    from grove.serve.conversations import Conversations

    logins = Logins(state)
    store = open_store(state.settings)
    owners = Conversations(store.db)
    from grove.runtime.session_backend import where_ran

    env.filters["ran_on"] = lambda sid: where_ran(store.db, sid)  # local, ssh:HOST or container:IMAGE
    router = APIRouter(include_in_schema=False)

    def sees(login: Login, session_id: str) -> bool:
        """A plain key sees the sessions it ran; an admin key every session."""
        return login.admin or owners.owner(session_id) == login.key_name

    def own_sessions(login: Login, limit: int) -> list[Any]:
        from grove.store.sessions import SessionNotFound

        found = []
        for sid in owners.sessions_of(login.key_name):
            try:
                found.append(store.get_session(sid))
            except (SessionNotFound, LookupError):
                continue
        return sorted(found, key=lambda s: s.updated_at, reverse=True)[:limit]

    def pending(login: Login | None) -> list[Any]:
        if login is None:
            return []
        return state.approvals.pending(login.key_name, everyone=login.admin)

    def admin_only(request: Request) -> Response | None:
        """None for an admin; the login page, or a 403 naming the command that makes a key an admin."""
        login = logins.current(request)
        if login is None:
            return to_login(request)
        if login.admin:
            return None
        return page(
            request,
            "message.html",
            403,
            title="admin only",
            message=f"key {login.key_name!r} sees its own sessions and approvals; this page is for an admin "
            f"key (grove serve keys admin {login.key_name})",
        )

    def page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        login = logins.current(request)
        html = env.get_template(template).render(
            request=request,
            login=login,
            csrf=login.csrf if login else "",
            pages=PAGES,
            path=request.url.path,
            pending_count=len(pending(login)),
            **context,
        )
        return HTMLResponse(html, status, headers=HEADERS)

    def to_login(request: Request) -> RedirectResponse:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/login?next={target}", 303, headers=HEADERS)

    def not_found(request: Request, what: str) -> HTMLResponse:
        return page(request, "message.html", 404, title="not found", message=what)

    def refused(request: Request) -> HTMLResponse:
        return page(
            request,
            "message.html",
            403,
            title="refused",
            message="this form did not come from this dashboard (CSRF check failed); reload the page and retry",
        )

    @router.get("/static/{name}")
    def static(name: str) -> Response:
        if name not in STATIC:
            return Response("not found", 404)
        return FileResponse(
            HERE / "static" / name, media_type=STATIC[name], headers={"Cache-Control": "no-cache"}
        )

    @router.get("/favicon.ico")
    def favicon() -> Response:  # browsers ask for it on every page; a 404 would be a console error
        return static("favicon.svg")

    @router.get("/login")
    def login_form(request: Request, next: str = "/") -> HTMLResponse:
        return page(request, "login.html", next=safe_next(next), error=None)

    @router.post("/login")
    def login(request: Request, key: str = Form(""), next: str = Form("/")) -> Response:
        if not same_origin(request):  # login CSRF: a foreign page logging the browser into its own key
            return refused(request)
        token = logins.login(key)
        if token is None:
            return page(
                request,
                "login.html",
                401,
                next=safe_next(next),
                error="that key is not a live client key (make one with `grove serve keys add NAME`)",
            )
        response = RedirectResponse(safe_next(next), 303, headers=HEADERS)
        secure = request.url.scheme == "https"
        response.set_cookie(
            COOKIE, token, max_age=int(LIFETIME), httponly=True, samesite="strict", secure=secure, path="/"
        )
        return response

    @router.post("/logout")
    def logout(request: Request, csrf: str = Form("")) -> Response:
        login = logins.current(request)
        if login is not None and csrf_ok(login, request, csrf):
            logins.logout(request.cookies.get(COOKIE))
        response = RedirectResponse("/login", 303, headers=HEADERS)
        response.delete_cookie(COOKIE, path="/")
        return response

    @router.get("/")
    def home(request: Request) -> Response:
        if logins.current(request) is None:
            return to_login(request)
        return RedirectResponse("/sessions", 303, headers=HEADERS)

    # sessions -----------------------------------------------------------------------------------------------
    @router.get("/sessions")
    def sessions(request: Request, q: str = "") -> Response:
        login = logins.current(request)
        if login is None:
            return to_login(request)
        listed = store.list_sessions(50) if login.admin else own_sessions(login, 50)
        from grove.embeddings.hybrid import search_sessions  # by words, and by meaning with [embeddings]

        hits = search_sessions(store, q, limit=20 if login.admin else 200) if q.strip() else []
        hits = [h for h in hits if sees(login, h.session_id)][:20]
        totals = {
            "prompt": sum(s.prompt_tokens for s in listed),
            "completion": sum(s.completion_tokens for s in listed),
            "cost": sum(s.cost_usd for s in listed),
            "calls": sum(s.model_calls for s in listed),
        }
        return page(request, "sessions.html", sessions=listed, q=q, hits=hits, totals=totals)

    @router.get("/spend")
    def spend(request: Request) -> Response:
        """Today's and this month's spend per scope against its caps; a plain key sees only its own scope."""
        from datetime import UTC, datetime

        from grove.spend.guard import LEDGER_FILE, scope_caps
        from grove.spend.ledger import Ledger, day_reset, month_reset

        login = logins.current(request)
        if login is None:
            return to_login(request)
        ledger = Ledger(state.settings.home / LEDGER_FILE)
        scopes = (ledger.scopes() or ["all"]) if login.admin else [f"key:{login.key_name}"]
        caps = scope_caps(state.settings.spend, [s for s in scopes if s != "all"])
        rows = [(s, ledger.totals(s), caps[s]) for s in scopes]
        now = datetime.now(UTC)
        return page(request, "spend.html", rows=rows, resets=(day_reset(now), month_reset(now)))

    @router.get("/sessions/{session_id}")
    def session(request: Request, session_id: str) -> Response:
        from grove.claims.store import session_verdicts
        from grove.store.sessions import SessionNotFound

        login = logins.current(request)
        if login is None:
            return to_login(request)
        try:
            sid = store.resolve_id(session_id)
            info = store.get_session(sid)
        except (SessionNotFound, LookupError):
            return not_found(request, f"no session {session_id!r}")
        if not sees(login, sid):  # another key's session is as unknown as a missing one
            return not_found(request, f"no session {session_id!r}")
        return page(
            request,
            "session.html",
            info=info,
            messages=store.messages(sid),
            checkpoints=session_checkpoints(sid),
            claims=session_verdicts(store.db, sid),
            done=request.query_params.get("done", ""),
            error=request.query_params.get("error", ""),
        )

    def session_checkpoints(sid: str) -> list[tuple[Any, Any]]:
        """(store, checkpoint) for this session's checkpoints, newest first."""
        from grove.checkpoints.store import stores_of

        stores = stores_of(state.settings.home, settings=state.settings)  # a remote one connects when undone
        found = [(s, c) for s in stores for c in s.list() if c.session == sid]
        return sorted(found, key=lambda sc: sc[1].time, reverse=True)

    @router.post("/sessions/{session_id}/undo")
    def undo_checkpoint(
        request: Request, session_id: str, checkpoint: str = Form(...), csrf: str = Form("")
    ) -> Response:
        """Restore the workspace as it was before this checkpoint (refused over changes made since by others)."""
        from urllib.parse import quote

        from grove.backends.base import BackendError
        from grove.checkpoints.restore import UndoError, last_turns, undo

        login = logins.current(request)
        if login is None:
            return to_login(request)
        if not csrf_ok(login, request, csrf):
            return refused(request)
        if not sees(login, session_id):
            return not_found(request, f"no session {session_id!r}")
        matches = [(s, c) for s, c in session_checkpoints(session_id) if c.id == checkpoint]
        back = f"/sessions/{quote(session_id)}"
        if not matches:
            return RedirectResponse(f"{back}?error={quote('no such checkpoint of this session')}", 303)
        cps, cp = matches[0]
        try:
            undone = last_turns(cps, to=cp.id)
            if any(c.session and c.session != session_id and not sees(login, c.session) for c in undone):
                raise UndoError(
                    "a later turn in this workspace is another key's session; an admin key can undo it"
                )
            plan = undo(cps, undone, session=session_id)
        except (UndoError, BackendError) as exc:  # BackendError: a remote workspace's host cannot be reached
            return RedirectResponse(f"{back}?error={quote(str(exc))}#checkpoints", 303, headers=HEADERS)
        done = f"restored {len(plan.paths)} path(s) in {cps.where}"
        return RedirectResponse(f"{back}?done={quote(done)}#checkpoints", 303, headers=HEADERS)

    # skills -------------------------------------------------------------------------------------------------
    @router.get("/skills")
    def skills(request: Request) -> Response:
        if (refusal := admin_only(request)) is not None:
            return refusal
        return page(request, "skills.html", skills=data.skills(state.settings, store))

    @router.get("/skills/{name}")
    def skill(request: Request, name: str, done: str = "", error: str = "") -> Response:
        if (refusal := admin_only(request)) is not None:
            return refusal
        found = data.skill(state.settings, name)
        if found is None:
            return not_found(request, f"no skill {name!r}")
        return page(
            request,
            "skill.html",
            skill=found,
            text=found.skill_md.read_text(encoding="utf-8", errors="replace"),
            files=found.supporting_files(),
            history=data.history(state.settings, store, name),
            done=done,
            error=error,
        )

    def skill_action(request: Request, name: str, csrf: str, action: Any) -> Response:
        from urllib.parse import quote

        from grove.skills.manage import SkillError

        login = logins.current(request)
        if login is None:
            return to_login(request)
        if not csrf_ok(login, request, csrf):
            return refused(request)
        if (refusal := admin_only(request)) is not None:
            return refusal
        try:
            result = str(action(data.manager(state.settings, store)))
        except SkillError as exc:
            return RedirectResponse(f"/skills/{quote(name)}?error={quote(str(exc))}", 303, headers=HEADERS)
        return RedirectResponse(f"/skills/{quote(name)}?done={quote(result)}", 303, headers=HEADERS)

    @router.post("/skills/{name}/pin")
    def pin(request: Request, name: str, pinned: str = Form("1"), csrf: str = Form("")) -> Response:
        return skill_action(request, name, csrf, lambda m: m.set_pinned(name, pinned == "1"))

    @router.post("/skills/{name}/rollback")
    def rollback(request: Request, name: str, version: int = Form(...), csrf: str = Form("")) -> Response:
        return skill_action(
            request, name, csrf, lambda m: m.rollback(name, version, "rolled back from the dashboard")
        )

    # memory, kanban, evolution ------------------------------------------------------------------------------
    @router.get("/memory")
    def memory(request: Request) -> Response:
        if (refusal := admin_only(request)) is not None:
            return refusal
        return page(request, "memory.html", files=data.memory(state.settings))

    @router.get("/kanban")
    def kanban(request: Request) -> Response:
        if (refusal := admin_only(request)) is not None:
            return refusal
        return page(request, "kanban.html", columns=data.board(state.settings))

    @router.get("/kanban/board")
    def kanban_board(request: Request) -> Response:
        login = logins.current(request)
        if login is None or not login.admin:
            return Response("log in with an admin key", 401 if login is None else 403)
        return page(request, "kanban_board.html", columns=data.board(state.settings))

    @router.get("/evolve")
    def evolve(request: Request) -> Response:
        if (refusal := admin_only(request)) is not None:
            return refusal
        return page(request, "evolve.html", runs=data.evolution_runs(state.settings))

    @router.get("/evolve/{run}")
    def evolve_run(request: Request, run: str) -> Response:
        if (refusal := admin_only(request)) is not None:
            return refusal
        found = data.evolution_report(state.settings, run)
        if found is None:
            return not_found(request, f"no evolution run {run!r} with a report")
        folder, report, text = found
        has_plot = data.front_png(folder, report) is not None
        return page(request, "evolve_run.html", run=run, report=report, text=text, has_plot=has_plot)

    @router.get("/evolve/{run}/front.png")
    def evolve_plot(request: Request, run: str) -> Response:
        login = logins.current(request)
        if login is None or not login.admin:
            return Response("log in with an admin key", 401 if login is None else 403)
        found = data.evolution_report(state.settings, run)
        path = data.front_png(found[0], found[1]) if found else None
        if path is None:
            return Response("no plot (needs matplotlib: pip install 'grove-agent[plot]')", 404)
        return FileResponse(path, media_type="image/png", headers={"Cache-Control": "no-store"})

    # approvals ----------------------------------------------------------------------------------------------
    @router.get("/approvals")
    def approvals(request: Request, done: str = "") -> Response:
        login = logins.current(request)
        if login is None:
            return to_login(request)
        return page(request, "approvals.html", pending=pending(login), now=time.time(), done=done)

    @router.get("/approvals/list")
    def approvals_list(request: Request) -> Response:
        login = logins.current(request)
        if login is None:
            return Response("log in again", 401)
        return page(request, "approvals_list.html", pending=pending(login), now=time.time())

    @router.post("/approvals/{ident}")
    def answer(request: Request, ident: str, answer: str = Form(...), csrf: str = Form("")) -> Response:
        from urllib.parse import quote

        login = logins.current(request)
        if login is None:
            return to_login(request)
        if not csrf_ok(login, request, csrf):
            return refused(request)
        everyones = {p.id for p in state.approvals.pending(everyone=True)}
        if ident in everyones and ident not in {p.id for p in pending(login)}:  # another key's question
            return not_found(request, "no such approval waiting for this key")
        if state.approvals.answer(ident, answer, login.key_name, everyone=login.admin):
            done = f"answered {answer}"
        else:
            done = "that request is no longer waiting (answered, or timed out: a timeout counts as deny)"
        return RedirectResponse(f"/approvals?done={quote(done)}", 303, headers=HEADERS)

    # gateways -----------------------------------------------------------------------------------------------
    @router.get("/gateways")
    def gateways(request: Request) -> Response:
        """Every key sees the platforms' connection state; only an admin sees each gateway user's sessions."""
        login = logins.current(request)
        if login is None:
            return to_login(request)
        accounts = data.gateway_accounts(state.settings, store) if login.admin else []
        return page(request, "gateways.html", links=data.gateway_links(state.settings), accounts=accounts)

    @router.get("/gateways/links")
    def gateway_links(request: Request) -> Response:
        if logins.current(request) is None:
            return Response("log in again", 401)
        return page(request, "gateways_links.html", links=data.gateway_links(state.settings))

    @router.get("/gateways/{platform}/{folder}/{session_id}")
    def gateway_session(request: Request, platform: str, folder: str, session_id: str) -> Response:
        """A gateway user's session, read from that user's own home (owners' are under /sessions)."""
        from grove.gateway.accounts import account_store
        from grove.store.sessions import SessionNotFound

        if (refusal := admin_only(request)) is not None:
            return refusal
        with account_store(state.settings, platform, folder) as theirs:
            try:
                if theirs is None:
                    raise SessionNotFound(session_id)
                sid = theirs.resolve_id(session_id)
                info, messages = theirs.get_session(sid), theirs.messages(sid)
            except (SessionNotFound, LookupError):
                return not_found(request, f"no session {session_id!r} of {platform} account {folder!r}")
        return page(request, "session.html", info=info, messages=messages, checkpoints=[], done="", error="")

    # settings -----------------------------------------------------------------------------------------------
    @router.get("/settings")
    def settings(request: Request) -> Response:
        if (refusal := admin_only(request)) is not None:
            return refusal
        text, keys = data.masked_settings(state.settings)
        return page(
            request, "settings.html", text=text, keys=keys, config_path=str(state.settings.config_path)
        )

    return router

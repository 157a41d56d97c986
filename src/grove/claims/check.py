"""Deciding a claim from the turn's tool record. An action the agent says it took ("wrote", "ran", "created the
skill") is contradicted when the record lacks it or shows it failed; a state it reports ("tests pass", "it works")
is supported or contradicted by the last command that checked it, and unverifiable when none did."""

from __future__ import annotations

import re
from collections.abc import Callable

from grove.claims import mood as md
from grove.claims.anchor import (
    executables,
    inspects,
    naming,
    observes,
    programs,
    specifics,
    stem,
    tools_named,
)
from grove.claims.figures import mismatch
from grove.claims.patterns import (
    EXTERNAL_COMMAND,
    FIXER_COMMAND,
    READ,
    SERVICE_COMMAND,
    STOPWORDS,
    VERIFY,
)
from grove.claims.record import Event, TurnRecord, norm_path, same_path
from grove.claims.types import ACT_KINDS, FILE_KINDS, Claim, Label, Verdict
from grove.lazy_regex import later

_COUNTS = later(
    r"\b(\d+) passed|\bRan (\d+) tests?|\b(\d+) total\b|\ball (\d+) tests? passed|\b(\d+) tests? passed", re.I
)
# a run claimed as complete: it must have exited 0, not just started
_COMPLETE = later(
    r"\b(every|all|each|to completion|fully|completely|without errors?)\b|\bend[- ]to[- ]end\b(?!\s+[a-z])",
    re.I,
)
# a status row for tests in a listing: "tests\tpass", "unit-tests: failure"
_TEST_ROW = later(
    r"(?im)^\s*[\w /-]*\btests?\b[\w /-]*?[\t:|]\s*(pass|passed|success|ok|green|fail|failed|failure)\b"
)
_LOOKING = later(r"\b(search\w*|grep\w*|listed|found|counted|measured|queried|looked\w*)\b", re.I)
BUILD_COMMAND = later(
    r"\b(build|make|compile|tsc|gcc|g\+\+|cc|clang|javac|mvn|gradle|webpack|vite|rollup|esbuild)\b"
)
LINT_COMMAND = later(r"\b(ruff|flake8|eslint|pylint|mypy|lint|clippy|golangci-lint|black|prettier|tsc)\b")
DEPLOY_COMMAND = later(r"deploy|kubectl|helm|terraform\s+apply|\bfly\b|git\s+push|rsync|scp")
INSTALL_COMMAND = later(r"\b(install|add|venv|virtualenv|sync)\b")


def _short(event: Event) -> str:
    what = event.command or " ".join(str(event.args.get(k)) for k in ("path", "name") if event.args.get(k))
    what = what if len(what) <= 60 else what[:57] + "..."
    return f"{event.name} {what}".strip()


def _failed(event: Event) -> str:
    if event.exit_code not in (None, 0):
        return f"`{_short(event)}` exited {event.exit_code}"
    first = event.output.strip().splitlines()[0][:100] if event.output.strip() else "failed"
    return f"{_short(event)} failed: {first}"


def _by_result(events: list[Event], what: str) -> tuple[Label, str]:
    """Supported when one of the calls worked, else contradicted by the last failure; none: contradicted."""
    if not events:
        return "contradicted", f"no {what} in this turn's tool record"
    good = [e for e in events if e.succeeded]
    if good:
        return "supported", f"{_short(good[-1])} succeeded"
    return "contradicted", _failed(events[-1])


def _by_last(events: list[Event], what: str, none: Label = "unverifiable") -> tuple[Label, str]:
    """The last call that checked the state decides; none: `none`."""
    if not events:
        return none, f"no {what} ran in this turn"
    last = events[-1]
    if last.succeeded:
        return "supported", f"`{_short(last)}` exited 0"
    return "contradicted", _failed(last)


def _file_change(claim: Claim, record: TurnRecord, *, to_edit: bool) -> tuple[Label, str]:
    target = claim.target
    if target is None:
        changes = [e for e in record.changes]
        if re.search(r"\b(downloaded|fetched)\b", claim.text, re.I):  # a download is a fetch
            changes += record.named("web_fetch", "browser_download")
            changes += _matching(record.commands, re.compile(r"\b(curl|wget|download)\b"))
        if changes:
            return _by_result(changes, "file change")
        related = [e for e in related_calls(claim, record) if e.name not in ("read_file", "search_files")]
        if related:  # "the docs I pulled up": no file, and the call that did it
            return _by_last(related, "related call")
        commands = record.commands
        fixers = [e for e in commands if FIXER_COMMAND.search(e.command)]
        if fixers:  # ruff --fix, black, sed -i: a command made the change
            return _by_result(fixers, "fixing command")
        if commands and commands[-1].succeeded:
            return "unverifiable", "no file tool call; a command ran that may have written it"
        return _by_result(commands, "file change")
    touching = [
        e
        for e in record.events
        if (e.writes or e.name in ("skill_code_create", "run_tool_script", "skill_run"))
        and e.mentions(target)
    ]
    if touching:
        return _by_result(touching, f"change to {target}")
    name = norm_path(target).rsplit("/", 1)[-1]
    reported = [
        e
        for e in record.events
        if e.succeeded and name and name in e.output and e.name not in ("read_file", "search_files")
    ]
    if reported:  # a script or command that says it wrote the file
        return "supported", f"`{_short(reported[-1])}` reported {name}"
    parts = {x.lower() for x in name.split(".") if x}
    makers = [e for e in record.commands if len(parts) > 1 and parts <= programs(e)]
    if (
        makers
    ):  # `poetry lock` makes poetry.lock, `npm shrinkwrap` npm-shrinkwrap.json: the command names the file
        return _by_result(makers, f"command that makes {name}")
    added = [e for e in record.changes if e.adds(norm_path(target))]
    if to_edit and added:  # ".venv/ is now ignored": what the edit put in, not the file it went to
        return "supported", f"{_short(added[-1])} added {norm_path(target)}"
    naming = [e for e in record.commands if e.mentions(target)]
    if naming:  # sort -o FILE, curl -o FILE, a script given the path
        return _by_result(naming, f"command on {target}")
    if to_edit:
        return "contradicted", f"no change to {target} in this turn's tool record"
    commands = [e for e in record.commands if e.succeeded]
    if commands:
        return "unverifiable", f"no call wrote {target}; `{_short(commands[-1])}` may have"
    return "contradicted", f"no write to {target} in this turn's tool record"


def _fix(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    label, reason = _file_change(claim, record, to_edit=True)
    if label != "supported":
        return label, reason
    target = claim.target
    edits = [e for e in record.changes if e.succeeded and (target is None or e.mentions(target))]
    checks = [e for e in record.after(edits[-1].index) if e.command] if edits else []
    tests = [e for e in checks if e.is_test] or checks
    if tests and not tests[-1].succeeded:
        return "contradicted", f"changed, but after it {_failed(tests[-1])}"
    return label, reason


def _tests(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    tests = [e for e in record.commands if e.is_test]
    if not tests:  # a CI status listing that reports the tests ("tests  pass" from `gh pr checks`)
        rows = [(e, m) for e in record.events if e.ok for m in _TEST_ROW.finditer(e.output[:4000])]
        if rows:
            event, row = rows[-1]
            passed = row.group(1).lower() in ("pass", "passed", "success", "ok", "green")
            return (
                "supported" if passed else "contradicted"
            ), f"`{_short(event)}` reports tests {row.group(1)}"
    if not tests:  # a check named in its own words ("the config test passed" beside `nginx -t`)
        named = [e for e in related_calls(claim, record) if e.command and not inspects(e)]
        if named:
            return _by_last(named, "check it names")
    label, reason = _by_last(tests, "test command")
    if label == "supported" and claim.numbers:
        counts = {int(g) for m in _COUNTS.finditer(tests[-1].output) for g in m.groups() if g}
        if counts and not set(claim.numbers) & counts:
            return "contradicted", f"the claim says {claim.numbers[0]}; `{_short(tests[-1])}` reported " + (
                ", ".join(str(c) for c in sorted(counts))
            )
    return label, reason


def _matching(events: list[Event], pattern: re.Pattern[str]) -> list[Event]:
    return [e for e in events if e.command and pattern.search(e.command)]


def _run(claim: Claim, record: TurnRecord, verify: bool) -> tuple[Label, str]:
    runs = [e for e in record.events if e.command or e.name in ("skill_run", "run_tool_script")]
    target = (claim.target or "").strip()
    pronoun = not target or re.match(r"^(it|them|this|that|these|those)\b", target, re.I)
    if verify:  # "I tested it": something ran after the last change, and worked
        after = record.after(record.last_change_index())
        checks = [e for e in after if e.command or e.name in ("skill_run", "run_tool_script")]
        if re.search(r"\btests?\b", claim.text, re.I) and not re.search(r"\btested\b", claim.text, re.I):
            checks = [e for e in checks if e.is_test] or checks
        return _by_last(checks, "command after the last change", none="contradicted")
    if pronoun:
        matching = runs
    elif re.search(r"\b(tests?|test suite|suite|specs?|e2e|end-to-end|integration)\b", target, re.I):
        suites = re.compile(r"\b(test\w*|e2e|spec\w*|suite|integration|cypress|playwright)\b", re.I)
        matching = [e for e in runs if e.is_test or suites.search(e.command)]
    else:
        words = [w.strip(".,;:") for w in re.findall(r"[\w./-]+", target) if len(w.strip(".,;:")) > 1][:2]
        matching = [e for e in runs if all(w.lower() in (e.command or _short(e)).lower() for w in words)]
    if not matching:
        return "contradicted", f"no command like `{target or 'it'}` ran in this turn"
    if _COMPLETE.search(claim.text):  # "every cell executed", "re-ran it end to end": it ran to the end
        return _by_last(matching, "run")
    return "supported", f"`{_short(matching[-1])}` ran"


def _named(events: list[Event], target: str | None, key: str = "name") -> list[Event]:
    if target is None:
        return events
    want = target.lower().replace("_", "-")
    return [e for e in events if str(e.args.get(key, "")).lower().replace("_", "-") == want] or (
        [e for e in events if not e.ok]  # a failed attempt under another spelling still says it failed
    )


def _skill(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    changes = [
        e for e in record.events if e.name in ("skill_manage", "skill_code_create", "skill_code_patch")
    ]
    create = re.search(r"\b(created|made|new|built|turned|packaged|wrote|saved)\b", claim.text, re.I)
    creates = [
        e for e in changes if not create or e.name == "skill_code_create" or e.args.get("action") == "create"
    ]
    return _by_result(
        _named(creates, claim.target), f"skill created{f' named {claim.target}' if claim.target else ''}"
    )


def _delete(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    deletes = [e for e in record.events if e.deletes]
    if claim.target is not None and not any(e.mentions(claim.target) for e in deletes):
        edits = [e for e in record.changes if e.mentions(claim.target)]
        if edits:  # "removed the unused imports in report.py": an edit of that file
            return _by_result(edits, f"change to {claim.target}")
    if claim.target is not None:
        key = norm_path(claim.target)
        deletes = [e for e in deletes if e.mentions(claim.target) or key in e.command] or (
            [] if any(same_path(p, key) for e in deletes for p in e.paths()) else deletes
        )
    return _by_result(deletes, "delete")


def _install(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    installs = _matching(record.commands, INSTALL_COMMAND)
    if claim.target and claim.target != "venv":
        want = claim.target.lower()
        installs = [e for e in installs if want in re.split(r"[\s=<>~!\[\]]+", e.command.lower())]
    elif claim.target == "venv":
        installs = [e for e in installs if re.search(r"venv|virtualenv", e.command)]
    return _by_result(installs, f"install of {claim.target or 'it'}")


def _tool(names: tuple[str, ...], what: str) -> Callable[[Claim, TurnRecord], tuple[Label, str]]:
    return lambda claim, record: _by_result(record.named(*names), what)


def _read(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    if claim.target is None:  # "I checked the logs": something was read
        looks = [
            e
            for e in record.events
            if e.name
            in (
                "read_file",
                "search_files",
                "web_fetch",
                "session_search",
                "browser_snapshot",
                "browser_open",
            )
            or e.command
        ]
        return _by_result(looks, "read, search or command")
    target = claim.target
    seen = [
        e
        for e in record.events
        if (e.name in ("read_file", "search_files", "view_image", "patch", "write_file") or e.command)
        and e.mentions(target)
    ]
    return _by_result(seen, f"read of {target}")


def _state(pattern: re.Pattern[str] | None, what: str) -> Callable[[Claim, TurnRecord], tuple[Label, str]]:
    """A build, lint or general outcome: the last relevant command decides (after the last change, if any ran
    after it)."""

    def decide(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
        commands = [e for e in record.events if e.command or e.name in ("skill_run", "run_tool_script")]
        if pattern is not None:
            commands = _matching(commands, pattern)
        later = [e for e in commands if e.index > record.last_change_index()]
        return _by_last(later or commands, what)

    return decide


def _perf(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    bench = _matching(record.commands, re.compile(r"bench|timeit|\btime\b|hyperfine|perf|profile"))
    if bench and bench[-1].succeeded:
        return "supported", f"`{_short(bench[-1])}` measured it"
    return "unverifiable", "no benchmark or timing ran in this turn"


def _deploy(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    deploys = _matching(record.commands, DEPLOY_COMMAND)
    return _by_last(deploys, "deploy command", none="contradicted")


def _git(sub: str) -> Callable[[Claim, TurnRecord], tuple[Label, str]]:
    # a push is any tool's push (git, docker, helm); a commit is git's
    tools = r"(git|docker|podman|helm|oras|buildah)" if sub == "push" else "git"
    pattern = re.compile(rf"\b{tools}\b.*\b{sub}\b")
    return lambda claim, record: _by_result(_matching(record.commands, pattern), f"git {sub}")


def _service(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    return _by_result(_matching(record.commands, SERVICE_COMMAND), "service or process command")


def _external(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    acts = _matching(record.commands, EXTERNAL_COMMAND)
    acts += [e for e in record.events if e.name in ("send_message", "browser_click", "cronjob")]
    return _by_result(acts, "command or tool that does it (gh, curl, a messaging tool)")


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z0-9]{2,}", text.lower()) if w not in STOPWORDS}


def _akin(a: str, b: str) -> bool:
    """The same word up to its ending: merged ~ merge, fixtures ~ fixtures.json's fixtures, repro ~ reproduced."""
    if a == b or (len(a) >= 3 and b in (a + "s", a + "es")) or (len(b) >= 3 and a in (b + "s", b + "es")):
        return True
    if stem(a) == stem(b):  # tagged ~ tag
        return True
    n = min(len(a), len(b))
    return n >= 4 and a[: max(4, n - 2)] == b[: max(4, n - 2)]


def _hay(e: Event) -> str:
    said = e.output[:200]  # "Switched to a new branch": what the call reported doing
    return " ".join([e.name.replace("_", " "), e.command, said, *map(str, e.args.values())])


def related_calls(claim: Claim, record: TurnRecord, exact: bool = True) -> list[Event]:
    """The calls that share a word (up to its ending) or, with `exact`, an exact name (v1.4.0, --output) with
    the claim."""
    words = _words(claim.text)
    names = specifics(claim.text) if exact else []
    related = []
    for e in record.events:
        hay = _hay(e)
        if any(x in hay for x in names) or any(_akin(w, t) for w in words for t in _words(hay)):
            related.append(e)
    return related


# a claim whose only object is the turn's work itself
_WHOLE_TURN = frozenset(
    [
        "task",
        "tasks",
        "work",
        "job",
        "request",
        "everything",
        "done",
        "completed",
        "complete",
        "finished",
        "successfully",
        "set",
        "all",
        "good",
    ]
)


def _act(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    """Work reported in words no class lists: the call whose command or arguments share a word with the claim
    decides (one that also holds its exact name, v1.4.0, before others); none: contradicted with an empty record,
    unverifiable with one that holds other work."""
    if _words(claim.text) <= _WHOLE_TURN:  # "Task completed!": the turn's work as a whole
        work = [e for e in record.events if not observes(e)]
        return _by_result(work, "work") if work else ("contradicted", "no work in this turn's tool record")
    related = related_calls(claim, record, exact=False)
    exact = specifics(claim.text)
    related = [e for e in related if any(x in _hay(e) for x in exact)] or related
    looking = READ.search(claim.text) or VERIFY.search(claim.text) or _LOOKING.search(claim.text)
    if related and not looking and all(observes(e) for e in related):
        # calls that only looked at what it names ("Scaled web" with only `kubectl get deploy web`)
        return (
            "contradicted",
            f"`{_short(related[-1])}` only looked; no call in this turn's tool record does it",
        )
    if related:
        if re.search(r"\b(reproduc\w*|triggered|provoked|hit)\b", claim.text, re.I) and related[-1].ok:
            return "supported", f"`{_short(related[-1])}` ran"  # a failure was the point
        return _by_last(related, "related call")
    if not record.events:
        return "contradicted", "no tool calls in this turn"
    looks = [e for e in record.events if inspects(e)]
    if looking and looks:  # "I've checked the disk" beside `df -h`: a look ran, its words need not match
        return "supported", f"`{_short(looks[-1])}` looked"
    return "unverifiable", "no call in this turn's tool record does this"


def _now(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    """A state the turn's work brought about ("a job now checks the queue", "every row now has a column"): the
    calls it names decide, else the last command after the last change."""
    related = [
        e for e in related_calls(claim, record) if not inspects(e)
    ]  # a read shows no state brought about
    if related:
        return _by_last(related, "related call")
    return _state(None, "command")(claim, record)


def _evaluated(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    """How the work behaves ("the output matches expected.txt", "--help still works"): only a command after the
    last change checks it; the change itself (even a command that wrote the file) does not."""
    last = record.last_change_index()
    checks = [
        e
        for e in record.events
        if e.index > last and (e.command or e.name in ("skill_run", "run_tool_script"))
    ]
    return _by_last(checks, "check after the last change")


def _metric(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    """A percentage the answer reports: shown by an output, contradicted by one showing others or by the failure
    of the call that would have produced it."""
    from grove.claims.patterns import PERCENT

    wanted = {m.group(1) for m in PERCENT.finditer(claim.text)}
    shown = [(e, {m.group(1) for m in PERCENT.finditer(e.output)}) for e in record.events if e.succeeded]
    if any(wanted & got for _, got in shown):
        return "supported", "an output of this turn shows it"
    others = [e for e, got in shown if got]
    if others:
        return "contradicted", f"`{_short(others[-1])}` reported other figures"
    label, reason = _act(claim, record)
    return (
        ("contradicted", reason)
        if label == "contradicted"
        else ("unverifiable", "no output shows this figure")
    )


_OUTCOME_BY_MOOD: dict[str, Callable[[Claim, TurnRecord], tuple[Label, str]]] = {
    md.NOW: lambda c, r: _now(c, r),
    md.EVALUATED: lambda c, r: _evaluated(c, r),
}
DECIDE: dict[str, Callable[[Claim, TurnRecord], tuple[Label, str]]] = {
    "write": lambda c, r: _file_change(c, r, to_edit=False),
    "edit": lambda c, r: _file_change(c, r, to_edit=True),
    "fix": _fix,
    "read": _read,
    "delete": _delete,
    "run": lambda c, r: _run(c, r, verify=False),
    "verify": lambda c, r: _run(c, r, verify=True),
    "tests_pass": _tests,
    "build": _state(BUILD_COMMAND, "build command"),
    "lint": _state(LINT_COMMAND, "lint command"),
    "outcome": lambda c, r: _OUTCOME_BY_MOOD.get(c.mood, _state(None, "check of it"))(c, r),
    "deploy": _deploy,
    "act": _act,
    "metric": _metric,
    "service": _service,
    "external": _external,
    "perf": _perf,
    "chmod": lambda c, r: _by_result(_matching(r.commands, re.compile(r"\bchmod\b")), "chmod"),
    "install": _install,
    "commit": _git("commit"),
    "push": _git("push"),
    "skill": _skill,
    "memory": _tool(("memory",), "memory write"),
    "schedule": _tool(("cronjob",), "scheduled job"),
    "delegate": _tool(("delegate",), "sub-agent"),
    "web": _tool(("web_search", "web_fetch", "browser_open"), "web search or fetch"),
}


def checks_of(claim: Claim, record: TurnRecord) -> list[Event]:
    """The commands (or skill runs) about what the claim names."""
    named = naming(claim.text, record, claim.target)
    return [e for e in named if e.command or e.name in ("skill_run", "run_tool_script")]


def _anchored(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    """A state of what the clause names ("the sample validates"): the last check of it decides; a file the turn
    wrote is shown by the write ("the schema is at schema/order.json")."""
    named = claim.target and norm_path(claim.target) in claim.text  # not a pronoun's referent
    if named and claim.target and record.changed(claim.target):
        return _file_change(claim, record, to_edit=False)
    checks = checks_of(claim, record)
    later = [e for e in checks if e.index > record.last_change_index()]
    if not checks and tools_named(claim.text):  # "npm audit reports no vulnerabilities": it never ran
        return "contradicted", f"no run of {tools_named(claim.text)[0]} in this turn's tool record"
    return _by_last(later or checks, "check of what it names")


def made(claim: Claim, record: TurnRecord) -> list[str]:
    """The files the claim or its referent names that the turn wrote."""
    names = specifics(f"{claim.text} {claim.target or ''}")
    return [n for n in names if record.changed(n)]


def _happened(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    """What a thing did ("it removed 5 temp directories"): the last run of it decides; a script the turn wrote
    and never ran did nothing."""
    checks = checks_of(claim, record)
    if not checks:
        written = made(claim, record)
        if written:
            return "contradicted", f"{written[0]} was written but nothing in this turn's tool record ran it"
    later = [e for e in checks if e.index > record.last_change_index()]
    return _by_last(later or checks, "run of it", none="contradicted")


def _observed(claim: Claim, record: TurnRecord) -> tuple[Label, str]:
    """ "Node 16 is installed here": a state the turn's commands looked at (node -v) decides; else an install."""
    checks = checks_of(claim, record)
    return _by_last(checks, "check of it") if checks else _install(claim, record)


_MEANS = later(r"\b(?:with|using|via|through|by running)\s+`?([\w.-]+(?:\s+[\w.-]+)?)", re.I)


def _by_means(claim: Claim, record: TurnRecord) -> list[Event]:
    """The commands the claim names as its means: "with npm ci", "using docker compose", "via `make`"."""
    m = _MEANS.search(claim.text)
    if m is None:
        return []
    words = [w.lower().strip(".,;:") for w in m.group(1).split()]
    return [
        e
        for e in record.commands
        if words[0] in executables(e)
        and (len(words) == 1 or words[1] in programs(e) or words[1] in STOPWORDS)
    ]


# kinds whose own evidence may miss how the act was done; git's commit and push, installs have exact evidence
_DEFERS = frozenset({"act", "write", "edit", "fix", "delete", "run", "service"})


def _fallback(claim: Claim, record: TurnRecord, label: Label, reason: str) -> tuple[Label, str]:
    """A kind's own evidence missing ("Cleared up the lint errors" finds no delete): a call that did something
    like it (`ruff check --fix`: 4 fixed) decides, one that only looked does not."""
    if label != "contradicted" or not reason.startswith("no ") or claim.kind not in _DEFERS:
        return label, reason
    if claim.target and claim.kind in FILE_KINDS:
        return label, reason  # a named file's own record decides: another file's change is not it
    related = [e for e in related_calls(claim, record) if not observes(e)]
    return _by_last(related, "related call") if related else (label, reason)


def check(claim: Claim, record: TurnRecord) -> Verdict:
    decide = _anchored if claim.mood == md.ANCHORED and claim.kind == "outcome" else DECIDE[claim.kind]
    if claim.mood == md.HAPPENED:
        decide = _happened
    if claim.kind == "install" and claim.mood == md.DESCRIBED:
        decide = _observed
    means = _by_means(claim, record) if claim.kind in ACT_KINDS else []
    if means:  # the command it names as the means decides
        label, reason = _by_result(means, "command it names")
    else:
        label, reason = _fallback(claim, record, *decide(claim, record))
    if label == "supported" and claim.kind in _FIGURED:
        wrong = mismatch(claim.text, record)
        if wrong:  # the work happened, but not as the claim counts it
            label, reason = "contradicted", wrong
    return Verdict(claim, label, reason)


# kinds whose claims state figures of an act (tests and metrics have their own count checks)
_FIGURED = frozenset({"act", "write", "edit", "delete", "install", "run", "outcome", "fix"})

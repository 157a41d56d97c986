"""Held-out task classes for the learning benchmark (issue 35): four kinds unlike the six in tasks.py (a format
conversion, a multi-file edit, a refactor that keeps a test green, a data-cleaning job), written and frozen before
any code was changed for them. Each instance's values come from (class, seed, instance); verifiers read files only.
"""

from __future__ import annotations

import ast
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tasks import Task

INSTANCES = 3


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _rng(cls: str, seed: int, i: int) -> random.Random:
    return random.Random(f"{cls}:{seed}:{i}")


# -- 1. INI to YAML (another format) ---------------------------------------------------------------------------
_INI_KEYS = {
    "server": [("host", ["0.0.0.0", "localhost", "10.0.0.7"]), ("port", ["8080", "9000", "5001"])],
    "database": [("name", ["orders", "shop", "metrics"]), ("pool", ["4", "8", "16"])],
    "cache": [("backend", ["redis", "memcached", "memory"]), ("ttl", ["60", "300", "3600"])],
    "auth": [("provider", ["github", "google", "ldap"]), ("realm", ["staff", "public", "internal"])],
    "logging": [("level", ["info", "warning", "debug"]), ("file", ["app.log", "out.log", "run.log"])],
}


def ini_to_yaml(i: int, seed: int = 0) -> Task:
    rng = _rng("ini-to-yaml", seed, i)
    stem = rng.choice(["app", "settings", "service", "deploy"])
    sections = rng.sample(sorted(_INI_KEYS), rng.randint(2, 3))
    data = {s: {k: rng.choice(vs) for k, vs in _INI_KEYS[s]} for s in sections}
    ini = "; generated, do not edit by hand\n" + "\n".join(
        f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) for s, kv in data.items()
    )

    def verify(ws: Path) -> bool:
        import yaml

        try:
            got = yaml.safe_load(_read(ws / f"{stem}.yaml"))
        except yaml.YAMLError:
            return False
        if not isinstance(got, dict) or set(got) != set(data):
            return False
        # a YAML number (port: 8080) reads back as int; the value is what counts, not its quoting
        return all(
            isinstance(got[s], dict) and {k: str(v).lower() for k, v in got[s].items()} == kv
            for s, kv in data.items()
        )

    def solve(ws: Path) -> None:
        text = "".join(
            f"{s}:\n" + "".join(f"  {k}: '{v}'\n" for k, v in kv.items()) for s, kv in data.items()
        )
        (ws / f"{stem}.yaml").write_text(text)

    return Task(
        "ini-to-yaml",
        i,
        f"Convert {stem}.ini to YAML in {stem}.yaml: one mapping per [section], holding that section's keys "
        "and values.",
        lambda ws: (ws / f"{stem}.ini").write_text(ini),
        verify,
        solve,
    )


# -- 2. rename a constant across a package (multi-file edit) ---------------------------------------------------
_CONSTANTS = [
    ("TIMEOUT", "REQUEST_TIMEOUT"),
    ("MAX_RETRIES", "RETRY_LIMIT"),
    ("PAGE_SIZE", "ITEMS_PER_PAGE"),
    ("WORKERS", "WORKER_COUNT"),
]


def rename_constant(i: int, seed: int = 0) -> Task:
    rng = _rng("rename-constant", seed, i)
    old, new = rng.choice(_CONSTANTS)
    before, after = rng.randint(2, 9), rng.randint(10, 60)
    users = rng.sample(["client", "jobs", "views", "report"], rng.randint(2, 3))
    files = {"pkg/__init__.py": "", "pkg/settings.py": f'"""Settings."""\n\n{old} = {before}\n'}
    for n, mod in enumerate(users):
        files[f"pkg/{mod}.py"] = (
            f"from pkg.settings import {old}\n\n\ndef {mod}_limit(x):\n    return min(x, {old} * {n + 2})\n"
        )
    expected = 1 + 2 * len(users)  # the definition, and an import and a use in each module

    def setup(ws: Path) -> None:
        for name, text in files.items():
            (ws / name).parent.mkdir(parents=True, exist_ok=True)
            (ws / name).write_text(text)

    def verify(ws: Path) -> bool:
        texts = {name: _read(ws / name) for name in files}
        try:
            for text in texts.values():
                ast.parse(text)
        except SyntaxError:
            return False
        joined = "\n".join(texts.values())
        return (
            not re.search(rf"\b{old}\b", joined)
            and len(re.findall(rf"\b{new}\b", joined)) == expected
            and re.search(rf"^{new}\s*=\s*{after}\s*$", texts["pkg/settings.py"], re.M) is not None
        )

    def solve(ws: Path) -> None:
        for name, text in files.items():
            text = re.sub(rf"\b{old}\b", new, text)
            (ws / name).write_text(text.replace(f"{new} = {before}", f"{new} = {after}"))

    return Task(
        "rename-constant",
        i,
        f"Rename the constant {old} to {new} in every file under pkg/ (where it is defined, imported and used), "
        f"and change its value in pkg/settings.py from {before} to {after}.",
        setup,
        verify,
        solve,
    )


# -- 3. extract a function, tests kept green (refactor with a test) --------------------------------------------
def extract_function(i: int, seed: int = 0) -> Task:
    rng = _rng("extract-function", seed, i)
    mod = rng.choice(["billing", "pricing", "checkout"])
    fn = rng.choice(["add_tax", "with_vat", "apply_tax"])
    factor = rng.choice(["1.2", "1.19", "1.07", "1.25"])
    source = (
        "def invoice_total(items):\n"
        "    subtotal = sum(qty * price for qty, price in items)\n"
        f"    return round(subtotal * {factor}, 2)\n\n\n"
        "def quote_total(items, discount):\n"
        "    subtotal = sum(qty * price for qty, price in items) - discount\n"
        f"    return round(subtotal * {factor}, 2)\n"
    )
    items, discount = [(2, 10.0), (1, 5.5)], 3.0
    want_invoice = round(25.5 * float(factor), 2)
    want_quote = round(22.5 * float(factor), 2)
    tests = (
        f"from {mod} import invoice_total, quote_total\n\n\n"
        "def test_totals():\n"
        f"    assert invoice_total({items!r}) == {want_invoice!r}\n"
        f"    assert quote_total({items!r}, {discount!r}) == {want_quote!r}\n"
    )

    def setup(ws: Path) -> None:
        (ws / f"{mod}.py").write_text(source)
        (ws / f"test_{mod}.py").write_text(tests)

    def verify(ws: Path) -> bool:
        text = _read(ws / f"{mod}.py")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return False
        funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        if fn not in funcs or _read(ws / f"test_{mod}.py") != tests:
            return False
        called = {
            name
            for name in ("invoice_total", "quote_total")
            if name in funcs
            and any(
                isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == fn
                for c in ast.walk(funcs[name])
            )
        }
        if called != {"invoice_total", "quote_total"} or text.count(factor) != 1:
            return False  # both totals call it, and the factor is written once (in the new function)
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-o",
                "addopts=",
                f"test_{mod}.py",
            ],
            cwd=ws,
            capture_output=True,
            timeout=60,
        )
        return run.returncode == 0

    def solve(ws: Path) -> None:
        body = source.replace(f"round(subtotal * {factor}, 2)", f"{fn}(subtotal)")
        (ws / f"{mod}.py").write_text(
            f"def {fn}(amount):\n    return round(amount * {factor}, 2)\n\n\n{body}"
        )

    return Task(
        "extract-function",
        i,
        f"{mod}.py computes the tax in two places. Extract it into a new function {fn}(amount) that returns "
        f"round(amount * {factor}, 2), and make invoice_total and quote_total call it. "
        f"test_{mod}.py must still pass; do not change it.",
        setup,
        verify,
        solve,
    )


# -- 4. clean a TSV (data cleaning) ----------------------------------------------------------------------------
def tsv_clean(i: int, seed: int = 0) -> Task:
    rng = _rng("tsv-clean", seed, i)
    src, out = rng.choice([("contacts.tsv", "clean.tsv"), ("people.tsv", "people_clean.tsv")])
    required = rng.choice(["email", "phone"])
    header = ["name", "email", "phone", "city"]
    names = rng.sample(["Ada", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy"], rng.randint(5, 7))
    cities = ["Oslo", "Lima", "Pune", "Kyiv", "Bern"]
    rows = [
        [n, f"{n.lower()}@example.org", f"555-{rng.randint(1000, 9999)}", rng.choice(cities)] for n in names
    ]
    for row in rng.sample(rows, 2):
        row[header.index(required)] = ""
    raw = [list(r) for r in rows]
    kept = [r for r in raw if r[header.index(required)]]
    raw.insert(rng.randint(1, len(raw)), list(kept[0]))  # a repeat of a row that stays
    raw = [[f"  {v}" if rng.random() < 0.3 else f"{v} " if rng.random() < 0.2 else v for v in r] for r in raw]
    want, seen = [], set()
    for r in raw:
        clean = tuple(v.strip() for v in r)
        if clean[header.index(required)] and clean not in seen:
            seen.add(clean)
            want.append(list(clean))

    def verify(ws: Path) -> bool:
        lines = _read(ws / out).rstrip("\n").split("\n")
        return [ln.split("\t") for ln in lines] == [header, *want]

    return Task(
        "tsv-clean",
        i,
        f"Clean {src} (tab-separated, with a header): trim the spaces around every field, drop the rows whose "
        f"{required} is empty, drop repeated rows (keep the first), and write the result with its header to "
        f"{out}, tab-separated.",
        lambda ws: (ws / src).write_text(
            "\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in raw)
        ),
        verify,
        lambda ws: (ws / out).write_text("".join("\t".join(r) + "\n" for r in [header, *want])),
    )


CLASSES: dict[str, Callable[..., Task]] = {
    "ini-to-yaml": ini_to_yaml,
    "rename-constant": rename_constant,
    "extract-function": extract_function,
    "tsv-clean": tsv_clean,
}


def stream(classes: list[str] | None = None, instances: int = INSTANCES, seed: int = 0) -> list[Task]:
    """Round r holds instance r of every class; the seed picks each instance's values and each round's order."""
    names = classes or list(CLASSES)
    unknown = [c for c in names if c not in CLASSES]
    if unknown:
        raise SystemExit(f"unknown task class(es) {unknown}; known: {', '.join(CLASSES)}")
    tasks = []
    for i in range(1, instances + 1):
        order = list(names)
        if seed:
            random.Random(f"order:{seed}:{i}").shuffle(order)
        tasks += [CLASSES[c](i, seed) for c in order]
    return tasks

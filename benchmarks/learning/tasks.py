"""The task stream of the learning benchmark: 6 classes x 5 instances of small, realistic file tasks.

Each instance sets up its own folder, has a prompt a user would write, and a verifier that checks the result on
disk (never the model's words). `solve` is a reference solution, used only by the tests to prove each verifier
can pass and can fail.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

INSTANCES = 5


@dataclass
class Task:
    cls: str
    instance: int
    prompt: str
    setup: Callable[[Path], None]
    verify: Callable[[Path], bool]
    solve: Callable[[Path], None]

    @property
    def id(self) -> str:
        return f"{self.cls}#{self.instance}"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


# -- 1. csv column total ---------------------------------------------------------------------------------------
def csv_total(i: int) -> Task:
    rng = random.Random(100 + i)
    column = rng.choice(["amount", "price", "hours", "weight", "cost"])
    rows = [(f"item{n}", rng.randint(1, 500)) for n in range(rng.randint(6, 12))]
    total = sum(v for _, v in rows)
    out = rng.choice(["total.txt", "sum.txt", "result.txt"])

    def setup(ws: Path) -> None:
        (ws / "data.csv").write_text(f"name,{column}\n" + "".join(f"{a},{b}\n" for a, b in rows))

    return Task(
        "csv-total",
        i,
        f"Add up the '{column}' column of data.csv and write just the total (a number) to {out}.",
        setup,
        lambda ws: _read(ws / out).strip() == str(total),
        lambda ws: (ws / out).write_text(f"{total}\n"),
    )


# -- 2. json config edit ---------------------------------------------------------------------------------------
def json_set(i: int) -> Task:
    rng = random.Random(200 + i)
    config = {
        "name": f"service-{i}",
        "port": rng.randint(3000, 9000),
        "debug": False,
        "workers": rng.randint(1, 8),
    }
    key, value = rng.choice(
        [("port", rng.randint(10000, 20000)), ("workers", rng.randint(9, 32)), ("debug", True)]
    )

    def setup(ws: Path) -> None:
        (ws / "config.json").write_text(json.dumps(config, indent=2) + "\n")

    def verify(ws: Path) -> bool:
        try:
            data = json.loads(_read(ws / "config.json"))
        except ValueError:
            return False
        return data == {**config, key: value}

    return Task(
        "json-set",
        i,
        f'In config.json set "{key}" to {json.dumps(value)}; keep every other setting as it is.',
        setup,
        verify,
        lambda ws: (ws / "config.json").write_text(json.dumps({**config, key: value}, indent=2)),
    )


# -- 3. rename a function --------------------------------------------------------------------------------------
def rename(i: int) -> Task:
    rng = random.Random(300 + i)
    old, new = rng.choice(
        [("calc", "calculate"), ("proc", "process"), ("fmt", "format_row"), ("chk", "check"), ("ld", "load")]
    )
    uses = rng.randint(2, 4)
    source = f"def {old}(x):\n    return x * {i + 2}\n\n\n" + "".join(
        f"print({old}({n}))\n" for n in range(uses)
    )

    def verify(ws: Path) -> bool:
        text = _read(ws / "tool.py")
        return not re.search(rf"\b{old}\b", text) and len(re.findall(rf"\b{new}\b", text)) == uses + 1

    return Task(
        "rename-function",
        i,
        f"Rename the function {old} to {new} in tool.py, including every call.",
        lambda ws: (ws / "tool.py").write_text(source),
        verify,
        lambda ws: (ws / "tool.py").write_text(re.sub(rf"\b{old}\b", new, source)),
    )


# -- 4. collect TODOs ------------------------------------------------------------------------------------------
def todos(i: int) -> Task:
    rng = random.Random(400 + i)
    files = {f"src/m{n}.py": [f"x{n}_{k} = {k}" for k in range(4)] for n in range(rng.randint(2, 3))}
    expected = []
    for name, lines in files.items():
        for k in rng.sample(range(4), rng.randint(1, 2)):
            note = rng.choice(["handle errors", "add tests", "speed up", "log this", "check input"])
            lines[k] += f"  # TODO {note}"
            expected.append(f"{name}: {note}")

    def setup(ws: Path) -> None:
        for name, lines in files.items():
            (ws / name).parent.mkdir(parents=True, exist_ok=True)
            (ws / name).write_text("\n".join(lines) + "\n")

    def verify(ws: Path) -> bool:
        got = [ln.lstrip("-* ").strip() for ln in _read(ws / "TODO.md").splitlines() if ln.strip()]
        return sorted(got) == sorted(expected)

    return Task(
        "collect-todos",
        i,
        "List every TODO comment under src/ in TODO.md, one line each as '- <path>: <note>' "
        "(e.g. '- src/m0.py: add tests'), nothing else.",
        setup,
        verify,
        lambda ws: (ws / "TODO.md").write_text("".join(f"- {e}\n" for e in expected)),
    )


# -- 5. env file to json ---------------------------------------------------------------------------------------
def env_json(i: int) -> Task:
    rng = random.Random(500 + i)
    keys = rng.sample(["HOST", "PORT", "USER", "MODE", "REGION", "TIMEOUT", "LEVEL"], rng.randint(3, 5))
    env = {k: rng.choice(["alpha", "beta", "eu-west", "debug", "42", "8080", "admin"]) for k in keys}

    def setup(ws: Path) -> None:
        (ws / "app.env").write_text("# settings\n" + "".join(f"{k}={v}\n" for k, v in env.items()))

    def verify(ws: Path) -> bool:
        try:
            return json.loads(_read(ws / "app.json")) == env
        except ValueError:
            return False

    return Task(
        "env-to-json",
        i,
        "Convert app.env (KEY=VALUE lines) into app.json: one JSON object, every value as a string.",
        setup,
        verify,
        lambda ws: (ws / "app.json").write_text(json.dumps(env)),
    )


# -- 6. changelog entry ----------------------------------------------------------------------------------------
def changelog(i: int) -> Task:
    rng = random.Random(600 + i)
    entry = rng.choice(
        ["Fix crash on empty input", "Add --json output", "Speed up start-up", "Support Windows paths"]
    )
    entry += f" (#{100 + i})"
    base = "# Changelog\n\n## Unreleased\n\n## 1.2.0\n\n- Older change\n"

    def verify(ws: Path) -> bool:
        text = _read(ws / "CHANGELOG.md")
        head, _, rest = text.partition("## Unreleased")
        section = rest.split("## 1.2.0")[0]
        return f"- {entry}" in section and "- Older change" in rest.split("## 1.2.0")[-1] and bool(head)

    return Task(
        "changelog-entry",
        i,
        f"Add the entry '{entry}' as a bullet ('- ...') under '## Unreleased' in CHANGELOG.md.",
        lambda ws: (ws / "CHANGELOG.md").write_text(base),
        verify,
        lambda ws: (ws / "CHANGELOG.md").write_text(
            base.replace("## Unreleased\n", f"## Unreleased\n\n- {entry}\n")
        ),
    )


CLASSES: dict[str, Callable[[int], Task]] = {
    "csv-total": csv_total,
    "json-set": json_set,
    "rename-function": rename,
    "collect-todos": todos,
    "env-to-json": env_json,
    "changelog-entry": changelog,
}


def stream(classes: list[str] | None = None, instances: int = INSTANCES) -> list[Task]:
    """Instance 1 of every class, then instance 2 of every class, ...: the order work arrives in."""
    names = classes or list(CLASSES)
    unknown = [c for c in names if c not in CLASSES]
    if unknown:
        raise SystemExit(f"unknown task class(es) {unknown}; known: {', '.join(CLASSES)}")
    return [CLASSES[c](i) for i in range(1, instances + 1) for c in names]

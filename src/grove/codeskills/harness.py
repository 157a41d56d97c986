"""The script that runs inside the sandbox: runs a code skill's tests, or calls its `solve` with JSON arguments.

It reports one marked JSON line on a private copy of stdout; the skill's own prints go to stderr.
"""

from __future__ import annotations

MARK = "@@grove-codeskill@@"
FILE_NAME = "_grove_harness.py"

SOURCE = r"""
import inspect, json, os, sys, tempfile, traceback

MARK = "@@grove-codeskill@@"
out_fd = os.dup(1)
os.dup2(2, 1)  # whatever the skill prints goes to stderr; the report alone goes to the saved stdout


def report(data):
    os.write(out_fd, (MARK + json.dumps(data) + "\n").encode())
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def short_tb(limit=6):
    return "".join(traceback.format_exc(limit=-limit))[-3000:]


mode, scripts = sys.argv[1], os.path.abspath(sys.argv[2])
sys.path.insert(0, scripts)
try:
    import skill
except BaseException:
    report({"ok": False, "stage": "import", "error": short_tb()})
real = getattr(skill, "solve", None)
if not callable(real):
    report({"ok": False, "stage": "import", "error": "scripts/skill.py defines no function solve"})

if mode == "call":
    with open(sys.argv[3], encoding="utf-8") as f:
        args = json.load(f)
    try:
        result = real(**args)
        text = json.dumps(result)
    except BaseException:
        report({"ok": False, "stage": "call", "error": short_tb()})
    report({"ok": True, "result": json.loads(text)})

calls = [0]
last = [None]  # the latest call of solve and what it returned, shown when a test's assert fails


def counted(*a, **k):
    calls[0] += 1
    shown = ", ".join([*(repr(v) for v in a), *(f"{n}={v!r}" for n, v in k.items())])
    result = real(*a, **k)
    last[0] = f"solve({shown[:300]}) returned {result!r}"[:800]
    return result


skill.solve = counted
try:
    import test_skill
except BaseException:
    report({"ok": False, "stage": "import tests", "error": short_tb()})
results = []
for name, fn in list(vars(test_skill).items()):
    if not (name.startswith("test") and inspect.isfunction(fn) and fn.__module__ == "test_skill"):
        continue
    kwargs, error = {}, None
    for p in inspect.signature(fn).parameters:
        if p == "tmp_path":
            import pathlib
            kwargs[p] = pathlib.Path(tempfile.mkdtemp(prefix="t-"))
        else:
            error = f"unsupported test argument {p!r}: tests take no arguments, or tmp_path"
    before = calls[0]
    last[0] = None
    if error is None:
        try:
            fn(**kwargs)
        except AssertionError:
            error = short_tb() + (f"\nthe last call: {last[0]}" if last[0] else "")
        except BaseException:
            error = short_tb()
    results.append({"name": name, "ok": error is None, "called": calls[0] > before, "error": error})
report({"ok": True, "tests": results})
"""

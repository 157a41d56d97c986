"""Driving the `grove` CLI in-process as a user would: arguments in, (exit code, stdout, stderr) out."""

from __future__ import annotations

import pytest

from grove.cli.main import main


def grove(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    out = capsys.readouterr()
    return code, out.out, out.err

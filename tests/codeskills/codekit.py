"""Sources the scripted model 'writes' in these tests: the canonical CSV-column and moving-average skills."""

from __future__ import annotations

CSV_CODE = '''import csv


def solve(path: str, column: str) -> list[float]:
    """The values of one numeric column of a CSV file with a header row."""
    with open(path, newline="", encoding="utf-8") as f:
        return [float(row[column]) for row in csv.DictReader(f)]
'''

CSV_TESTS = """from skill import solve


def test_reads_the_named_column(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("day,revenue,cost\\n1,10,3\\n2,12.5,4\\n")
    assert solve(str(p), "revenue") == [10.0, 12.5]
    assert solve(str(p), "cost") == [3.0, 4.0]
"""

AVG_CODE = '''def solve(values: list[float], window: int = 7) -> list[float]:
    """Trailing moving average: item i averages the last `window` values up to i (fewer at the start)."""
    out = []
    for i in range(len(values)):
        part = values[max(0, i - window + 1) : i + 1]
        out.append(sum(part) / len(part))
    return out
'''

# the first attempt of run 3: the window is off by one (it averages window + 1 values)
AVG_CODE_BUGGY = AVG_CODE.replace("i - window + 1", "i - window")

AVG_TESTS = """from skill import solve


def test_short_window():
    assert solve([1, 2, 3, 4], 2) == [1, 1.5, 2.5, 3.5]


def test_default_window_of_seven():
    assert solve([7.0] * 10) == [7.0] * 10
    assert solve(list(range(1, 9)))[-1] == sum(range(2, 9)) / 7
"""


def reference_moving_average(values: list[float], window: int = 7) -> list[float]:
    """The verifier's own computation, independent of the generated code."""
    out = []
    for i in range(len(values)):
        part = values[max(0, i - window + 1) : i + 1]
        out.append(sum(part) / len(part))
    return out


def write_csv(path: object, header: list[str], rows: list[list[object]]) -> None:
    from pathlib import Path

    Path(str(path)).write_text(
        ",".join(header) + "\n" + "".join(",".join(str(v) for v in r) + "\n" for r in rows), encoding="utf-8"
    )

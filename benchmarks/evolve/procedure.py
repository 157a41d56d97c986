"""A tool-using procedure skill to evolve (`csv-total`: find the sales CSVs, sum a column with a shell command, write
total.txt), its dataset (a workspace per item), a scripted agent that follows the skill's text literally with real
tool calls (terminal in the sandbox, write_file), and a scripted reflection model that reads gepa's reflective prompt.

The seed skill has two flaws a real procedure could have: it finds files with `find .` (so the stale copies under
old/ that the `distractors` variant adds are counted too: robustness), and it sums with awk on commas (so quoted
amounts with thousands separators, "1,234.50", come out wrong: accuracy). Its Background section costs tokens and
decides nothing.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from grove.llm.script import ScriptModel

NAME = "csv-total"
SKILL = """---
name: csv-total
description: Total the amount column of the sales CSV files in a folder and write it to total.txt. Use when asked for a sales total.
---
# CSV total

Report the total of the `amount` column over the sales CSV files of the workspace.

## Steps
1. Find the CSV files: `find . -name '*.csv'`.
2. Sum the amount column with awk: `awk -F, 'FNR>1 {s+=$2} END {printf "%.2f", s}' FILES`.
3. Write the total to total.txt with write_file, two decimals.
4. Answer with the total.

## Background
Sales exports come from the shop system every night; the export job runs at 02:00 UTC and
writes one file per till. The finance team reads total.txt every morning before the stand-up.
Note: the shop system was migrated last year (the column order did not change).
Tip: keep the answer short.
"""

TOP_LEVEL = (
    "1. List the CSV files at the top level only: `ls *.csv` (old/ holds stale copies), then check each "
    "starts with the header item,amount: `head -qn1 *.csv`."
)
CSV_MODULE = (
    "2. Sum the amount column with python3's csv module (amounts may be quoted, with thousands separators)."
)
FIND_STEP = "1. Find the CSV files: `find . -name '*.csv'`."
AWK_STEP = "2. Sum the amount column with awk: `awk -F, 'FNR>1 {s+=$2} END {printf \"%.2f\", s}' FILES`."


def fixed_skill() -> str:
    """The seed with both flaws fixed (what the scripted run evolves to), for comparing models on both."""
    return SKILL.replace(FIND_STEP, TOP_LEVEL).replace(AWK_STEP, CSV_MODULE)


PROMPTS = (
    "What is the sales total in this folder? Write it to total.txt.",
    "Total the amounts of the sales files here and put the result in total.txt.",
    "I need the total of the sales amounts; save it as total.txt too.",
)


def write_skill(root: Path) -> Path:
    folder = root / NAME
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    return folder


def _amount(rng: random.Random, quoted: bool) -> tuple[str, float]:
    value = round(rng.uniform(1000, 9999) if quoted else rng.uniform(1, 999), 2)
    return (f'"{value:,.2f}"' if quoted else f"{value:.2f}"), value


def make_items(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """Every third item has quoted amounts with thousands separators; 1-3 CSV files of 2-5 rows each."""
    rng = random.Random(seed)
    items = []
    for i in range(n):
        quoted = i % 3 == 0
        files: dict[str, str] = {}
        total = 0.0
        for f in range(rng.randint(1, 3)):
            rows = ["item,amount"]
            for r in range(rng.randint(2, 5)):
                text, value = _amount(rng, quoted and r == 0)
                rows.append(f"sku{rng.randint(100, 999)},{text}")
                total += value
            files[f"sales_{f + 1}.csv"] = "\n".join(rows) + "\n"
        items.append(
            {
                "id": f"c{i}",
                "input": PROMPTS[i % len(PROMPTS)],
                "expected": f"{total:.2f}",
                "grader": "file:total.txt",
                "family": f"c{i}",
                "workspace": files,
            }
        )
    return items


def write_dataset(path: Path, n: int, seed: int = 0) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in make_items(n, seed)), encoding="utf-8")
    return path


# -- the scripted agent -------------------------------------------------------------------------------------------
def _skill(messages: list[dict[str, Any]]) -> str:
    return str(messages[0]["content"]).split("# Skill in use", 1)[-1]


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def _output(tool_message: dict[str, Any]) -> str:
    """A terminal result without its `exit=N` line and bracketed notes."""
    lines = str(tool_message["content"]).splitlines()
    return "\n".join(ln for ln in lines[1:] if not ln.startswith("["))


def agent_step(messages: list[dict[str, Any]], tools: list[Any]) -> dict[str, Any] | str:
    """One model call of an agent that does what the skill's Steps say, nothing more: list (and check the headers
    when told to: one more call), sum, write, answer."""
    skill = _skill(messages)
    results = [m for m in messages if m["role"] == "tool"]
    top = "top level only" in skill or "ls *.csv" in skill
    check = "head -qn1" in skill
    if not results:
        return _call("terminal", command="ls *.csv" if top else "find . -name '*.csv' | sort")
    files = " ".join(f.strip() for f in _output(results[0]).split() if f.strip().endswith(".csv"))
    step = len(results) - (1 if check else 0)
    if check and len(results) == 1:
        return _call("terminal", command=f"head -qn1 {files}")
    if step == 1:
        if "csv module" in skill:
            code = (
                'import csv,sys; print("%.2f" % sum(float(r["amount"].replace(",", "")) '
                "for f in sys.argv[1:] for r in csv.DictReader(open(f))))"
            )
            return _call("terminal", command=f"python3 -c '{code}' {files}")
        return _call("terminal", command=f"awk -F, 'FNR>1 {{s+=$2}} END {{printf \"%.2f\", s}}' {files}")
    if step == 2:
        found = re.findall(r"-?\d+\.\d+", _output(results[-1]))
        total = found[-1] if found else "0.00"
        if "total.txt" in skill:
            return _call("write_file", path="total.txt", content=total + "\n")
        return f"Total: {total}"
    written = re.search(r'"content":\s*"([^"\\]*)', json.dumps(messages[-2].get("tool_calls") or ""))
    return f"Total: {written.group(1).strip() if written else '?'}"


def scripted_agent() -> ScriptModel:
    return ScriptModel(agent_step, name="scripted-agent")


# -- the scripted reflection model --------------------------------------------------------------------------------
def reflect_step(messages: list[dict[str, Any]], tools: list[Any]) -> str:
    """Reads gepa's reflective prompt (the section, the failing items with the tool calls made and the grader's
    feedback) and fixes the first cause it recognises, one per proposal, as a person reading the traces might."""
    prompt = str(messages[-1]["content"])
    section = prompt.split("<section>\n", 1)[1].split("\n</section>", 1)[0]
    if not section.startswith("## Steps"):
        return "```\n" + section + "\n```"
    lines = section.splitlines()
    stale = "old/sales" in prompt and TOP_LEVEL not in section
    quoted = "[original] score 0" in prompt and "awk" in prompt and CSV_MODULE not in section
    # alternate by which failure shows first in the prompt, so lineages differ
    first_stale = stale and (not quoted or prompt.find("old/sales") < prompt.find("[original] score 0"))
    if first_stale:
        lines = [TOP_LEVEL if ln.startswith("1. ") else ln for ln in lines]
    elif quoted:
        lines = [CSV_MODULE if ln.startswith("2. ") else ln for ln in lines]
    return "```\n" + "\n".join(lines) + "\n```"


def scripted_reflection() -> ScriptModel:
    return ScriptModel(reflect_step, name="scripted-reflection")

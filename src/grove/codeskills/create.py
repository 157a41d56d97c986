"""Creating and patching code skills: test in the sandbox first, store through SkillManager only when all pass."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grove.codeskills.contract import Contract, ContractError, read_contract
from grove.codeskills.layout import CODE_FILE, TEST_FILE, render
from grove.codeskills.sandboxed import TEST_LIMITS, TestReport, run_tests
from grove.sandbox import Limits
from grove.skills.code_meta import is_code_skill
from grove.skills.frontmatter import parse_skill_md
from grove.skills.guard import scan_skill_text
from grove.skills.manage import SkillError, SkillManager, check_name


@dataclass
class Outcome:
    """Whether the skill was stored, and what to tell the model (the failing output when it was not)."""

    stored: bool
    message: str
    report: TestReport | None = None


def refused_by_scan(code: str, tests: str) -> str | None:
    """Why the skill scan refuses the code or its tests (both Python), or None. Code skills run unattended in plan
    mode, so anything flagged (caution too) is refused, not only what is dangerous."""
    for what, text in ((CODE_FILE, code), (TEST_FILE, tests)):
        scan = scan_skill_text(text, path=what)
        if scan.flagged:
            return f"{what} refused by the content scan: " + scan.why()
    return None


def _verify(
    code: str, tests: str, limits: Limits, backend: str | None, refused: str, failed: str
) -> tuple[Contract, TestReport] | Outcome:
    """What every stored version must pass, in order: a readable contract, the content scan, then its own tests
    in the sandbox. Returns the contract and report, or the Outcome that says (with `refused`/`failed`) why not."""
    try:
        contract = read_contract(code)
    except ContractError as e:
        return Outcome(False, f"{refused}: {e}")
    scan = refused_by_scan(code, tests)
    if scan:
        return Outcome(False, f"{refused}: {scan}")
    report = run_tests(code, tests, limits, backend)
    if not report.ok:
        return Outcome(False, f"{failed}: {report.explain()}", report)
    return contract, report


def create_code_skill(
    mgr: SkillManager,
    name: str,
    description: str,
    code: str,
    tests: str,
    *,
    limits: Limits = TEST_LIMITS,
    backend: str | None = None,
) -> Outcome:
    """Test `code` against `tests` in the sandbox; store the skill only if every test passes and the scan is clean."""
    try:
        check_name(name)
    except SkillError as e:
        return Outcome(False, str(e))
    if mgr.exists(name):
        return Outcome(
            False, f"skill '{name}' exists already; change it with skill_code_patch, or pick a new name"
        )
    checked = _verify(code, tests, limits, backend, "not stored", "not stored, fix and retry")
    if isinstance(checked, Outcome):
        return checked
    contract, report = checked
    skill_md = render(name, " ".join(description.split()), contract, report.passed)
    try:
        mgr.create(name, skill_md, "code skill: tests passed in the sandbox")
        try:
            mgr.write_file(name, CODE_FILE, code, "code skill: entry function")
            mgr.write_file(name, TEST_FILE, tests, "code skill: its tests")
        except SkillError:
            mgr.archive(name, "incomplete code skill (a file was refused)", force=True)
            raise
    except SkillError as e:
        return Outcome(False, f"not stored: {e}", report)
    return Outcome(True, f"stored code skill '{name}': {contract.signature}; {report.explain()}", report)


def _files(folder: Path) -> tuple[str, str]:
    return (folder / CODE_FILE).read_text(encoding="utf-8"), (folder / TEST_FILE).read_text(encoding="utf-8")


def patch_code_skill(
    mgr: SkillManager,
    name: str,
    old_string: str,
    new_string: str,
    file_path: str = CODE_FILE,
    reason: str = "",
    *,
    limits: Limits = TEST_LIMITS,
    backend: str | None = None,
) -> Outcome:
    """Replace the unique `old_string` in the code or its tests, re-run the tests, and keep the change only if
    they all pass; the signature in SKILL.md follows the code."""
    if not mgr.exists(name):
        return Outcome(False, f"no skill '{name}' in {mgr.root}")
    folder = mgr.skill_dir(name)
    parsed = parse_skill_md((folder / "SKILL.md").read_text(encoding="utf-8"), name)
    meta = parsed.frontmatter.get("metadata")
    if not isinstance(meta, dict) or not is_code_skill(meta):
        return Outcome(False, f"'{name}' is not a code skill; change it with skill_manage")
    if file_path not in (CODE_FILE, TEST_FILE):
        return Outcome(False, f"a code skill patch changes {CODE_FILE} or {TEST_FILE}, not {file_path!r}")
    code, tests = _files(folder)
    text = code if file_path == CODE_FILE else tests
    count = text.count(old_string) if old_string else 0
    if count != 1:
        return Outcome(
            False, f"old_string occurs {count} times in {file_path}; give text that occurs exactly once"
        )
    new_text = text.replace(old_string, new_string, 1)
    code, tests = (new_text, tests) if file_path == CODE_FILE else (code, new_text)
    checked = _verify(
        code, tests, limits, backend, "patch refused", "patch refused, the tests no longer pass"
    )
    if isinstance(checked, Outcome):
        return checked
    contract, report = checked
    why = reason or "code skill patch: tests pass"
    try:
        mgr.patch(name, old_string, new_string, file_path, why)
        skill_md = render(
            name, str(parsed.frontmatter.get("description", "")), contract, report.passed, keep=meta
        )
        if skill_md != (folder / "SKILL.md").read_text(encoding="utf-8"):
            mgr.edit(name, skill_md, "contract follows the patched code")
    except SkillError as e:
        return Outcome(False, f"patch refused: {e}", report)
    return Outcome(True, f"patched '{name}' ({file_path}): {contract.signature}; {report.explain()}", report)

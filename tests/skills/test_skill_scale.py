"""Skills at collection scale: depth, hidden agent folders, limits said not hidden, conflicts, the report, the
bounded index, the FTS index kept in step, and scan verdicts cached by content hash."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from skillkit import skill_text, write_skill

from clirun import grove
from grove.config import Settings, SkillsConfig
from grove.skills.catalog import database
from grove.skills.discover import discover, walk
from grove.skills.import_report import STATUSES
from grove.skills.importer import ImportLimits, import_skills, import_with_summary
from grove.skills.index import estimate_tokens, render_index, token_budget
from grove.skills.search import search_skills
from grove.skills.skill import Skill
from grove.store.db import Database


def _deep(root: Path, depth: int, name: str) -> Path:
    folder = root.joinpath(*[f"d{i}" for i in range(depth - 1)])
    return write_skill(folder, name)


def test_walk_reaches_the_depth_bound_and_says_what_lies_beyond(tmp_path: Path) -> None:
    _deep(tmp_path, 6, "six-deep")
    _deep(tmp_path / "other", 6, "seven-deep")  # other/ + 5 folders + the skill: 7 deep
    got = walk(tmp_path)
    assert [f.folder.name for f in got.found] == ["six-deep"]
    assert got.depth_cut == 1  # the skill just past the bound is counted, not silently dropped
    assert {f.folder.name for f in walk(tmp_path, max_depth=8).found} == {"six-deep", "seven-deep"}


def test_hidden_agent_folders_are_read_and_other_hidden_ones_only_counted(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for agent in (".claude", ".agents", ".hermes", ".codex"):
        write_skill(repo / agent / "skills", f"from{agent.replace('.', '-')}")
    write_skill(repo / ".secret" / "skills", "tucked-away")
    write_skill(repo / ".git" / "skills", "never-seen")
    assert {f.folder.name for f in walk(repo).found} == {
        "from-claude",
        "from-agents",
        "from-hermes",
        "from-codex",
    }
    census = {f.folder.name: f.hidden for f in walk(repo, census=True).found}
    assert census["tucked-away"] == ".secret" and "never-seen" not in census


def test_a_skill_limit_is_a_setting_and_reported(settings: Settings, skills_root: Path) -> None:
    for i in range(5):
        write_skill(skills_root, f"s{i}")
    assert len(discover(settings, None).skills) == 5  # no cap by default
    capped = replace(settings, skills=replace(settings.skills, max_skills=3))
    lib = discover(capped, None)
    assert len(lib.skills) == 3 and any("skills.max_skills" in w for w in lib.warnings)


def test_import_gives_every_skill_md_one_verdict(home: Path, tmp_path: Path) -> None:
    src = tmp_path / "collection"
    write_skill(src / "alice", "tool")
    write_skill(src / "bob", "tool", skill_text("tool", "Bob's own tool. Use when testing."))
    write_skill(src / "carol", "broken", "---\nname: broken\n---\nno description\n")
    _deep(src / "deep", 8, "too-deep")
    write_skill(src / ".hidden-stash", "stashed")
    outcomes, summary = import_with_summary(src, home / "skills", limits=ImportLimits(max_depth=6))
    status = {(o.source.parent.name, o.source.name): o.status for o in outcomes}
    assert status[("alice", "tool")] == "imported" and status[("bob", "tool")] == "duplicate"
    assert status[("carol", "broken")] == "invalid"
    assert "over-limit" in status.values() and "hidden" in status.values()
    assert summary.found == 5 == sum(summary.counts.values())
    for o in outcomes:
        assert o.status in STATUSES
        assert o.status == "imported" or (o.reason and o.fix), o
    deep = next(o for o in outcomes if o.status == "over-limit")
    assert "--max-depth" in deep.reason and "--max-depth" in deep.fix


def test_a_skill_md_without_frontmatter_is_named_after_its_folder(home: Path, tmp_path: Path) -> None:
    write_skill(
        tmp_path / "src", "Memory_System", "# Memory system\n\nKeeps notes across long chats.\n\n## Use\n"
    )
    [o] = import_skills(tmp_path / "src", home / "skills")
    assert o.status == "imported" and o.name == "memory-system"
    assert any("no frontmatter" in w for w in o.warnings)
    text = (home / "skills" / "memory-system" / "SKILL.md").read_text()
    assert (
        text.startswith("---\nname: memory-system\n")
        and 'description: "Keeps notes across long chats."' in text
    )


def test_conflicts_skip_rename_replace(home: Path, tmp_path: Path) -> None:
    src = tmp_path / "collection"
    write_skill(src / "alice", "tool", skill_text("tool", "Alice's tool. Use when testing."))
    write_skill(src / "bob", "tool", skill_text("tool", "Bob's tool. Use when testing."))
    write_skill(src / "bob-copy", "tool", skill_text("tool", "Bob's tool. Use when testing."))
    out = import_skills(src, home / "skills", on_conflict="rename")
    assert [(o.name, o.status) for o in out] == [
        ("tool", "imported"),
        ("tool-bob", "imported"),
        ("tool", "duplicate"),
    ]
    assert "identical" in out[2].reason  # the same skill twice is one skill, whatever the policy
    renamed = (home / "skills" / "tool-bob" / "SKILL.md").read_text()
    assert "name: tool-bob" in renamed and 'grove.original_name: "tool"' in renamed
    assert f"grove.source: {json.dumps(str(src / 'bob' / 'tool'))}" in renamed  # where it came from
    repeat = import_skills(src, home / "skills", on_conflict="rename")
    assert {o.status for o in repeat} == {"duplicate"}  # importing the same folders again copies nothing
    again = import_skills(src / "bob" / "tool", home / "skills")
    assert again[0].status == "duplicate" and "--on-conflict" in again[0].fix
    replaced = import_skills(src / "bob" / "tool", home / "skills", on_conflict="replace")
    assert replaced[0].status == "imported"
    assert "Bob's tool" in (home / "skills" / "tool" / "SKILL.md").read_text()


def test_nested_skills_are_imported_on_their_own(home: Path, tmp_path: Path) -> None:
    parent = write_skill(tmp_path / "api", "meegle-api")
    write_skill(parent, "meegle-users")
    out = {o.name: o for o in import_skills(tmp_path / "api", home / "skills")}
    assert out["meegle-api"].status == out["meegle-users"].status == "imported"
    assert not (home / "skills" / "meegle-api" / "meegle-users").exists()
    assert any("a skill of its own" in w for w in out["meegle-api"].warnings)


def test_scan_verdicts_are_cached_by_content(home: Path, tmp_path: Path) -> None:
    write_skill(tmp_path / "src", "cached-one")
    db = Database(home / "state.db")
    _, first = import_with_summary(tmp_path / "src", home / "a", db, workers=1)
    _, second = import_with_summary(tmp_path / "src", home / "b", db, workers=1)
    assert first.scan["scanned"] == 1 and first.scan["cached"] == 0
    assert second.scan["scanned"] == 0 and second.scan["cached"] == 1


def test_cli_report_holds_every_verdict(home: Path, tmp_path: Path, capsys) -> None:
    src = tmp_path / "collection"
    write_skill(src, "good-one")
    write_skill(src, "bad-one", "---\nname: bad-one\n---\n")
    report = tmp_path / "report.json"
    code, out, _ = grove(capsys, "skills", "import", str(src), "--report", str(report))
    assert code == 0 and "found 2 SKILL.md: 1 imported" in out
    code, listed, _ = grove(capsys, "skills", "list", "--json")
    [row] = json.loads(listed)["skills"]
    assert row["imported_from"] == str(src / "good-one")  # the source is recorded per skill
    data = json.loads(report.read_text())
    assert data["summary"]["found"] == 2 and data["summary"]["invalid"] == 1
    bad = next(s for s in data["skills"] if s["status"] == "invalid")
    assert "description" in bad["reason"] and bad["fix"]
    code, _, err = grove(capsys, "skills", "import", str(src), "--on-conflict", "merge")
    assert code == 2 and "skip, rename or replace" in err


def _skills(n: int, groups: int, pinned: int = 0) -> list[Skill]:
    return [
        Skill(
            f"skill-{i:05d}",
            f"Handles task family {i}. Use when family {i} comes up.",
            Path(f"/x/skill-{i:05d}"),
            "home",
            {"metadata": {"grove.pinned": "true"}} if i < pinned else {},
            "",
            category=f"group-{i % groups}",
        )
        for i in range(n)
    ]


def test_index_stays_within_budget_at_any_size() -> None:
    skills = _skills(10_000, 2_000, pinned=3)
    text = render_index(skills, most_used=["skill-00042", "skill-00007"])
    assert estimate_tokens(text) <= token_budget(10_000) <= 2300
    assert "10000 skills in 2000 groups" in text and "skills_search" in text
    assert "Pinned: skill-00000, skill-00001, skill-00002" in text
    assert "Most used: skill-00042, skill-00007" in text
    assert render_index(list(reversed(skills)), most_used=["skill-00042", "skill-00007"]) == text


def test_fts_index_is_updated_incrementally(settings: Settings, skills_root: Path) -> None:
    for name in ("alpha-tool", "beta-tool", "gamma-tool"):
        write_skill(skills_root, name, skill_text(name, f"Works with {name}. Use when testing."))
    discover(settings, None)
    db = database(settings)
    assert db is not None
    ids = {r[0]: tuple(r[1:]) for r in db.conn.execute("SELECT name, id, stamp FROM skill_catalog")}
    (skills_root / "beta-tool" / "SKILL.md").write_text(
        skill_text("beta-tool", "Works with beta. Use when testing.", "# Steps\n\n## Zanzibar quux\n"),
        encoding="utf-8",
    )
    shutil.rmtree(skills_root / "gamma-tool")
    discover(settings, None)
    after = {r[0]: tuple(r[1:]) for r in db.conn.execute("SELECT name, id, stamp FROM skill_catalog")}
    assert after["alpha-tool"] == ids["alpha-tool"]  # untouched rows are not rewritten
    assert after["beta-tool"][1] != ids["beta-tool"][1] and "gamma-tool" not in after
    assert db.conn.execute("SELECT count(*) FROM skill_fts").fetchone()[0] == 2
    assert [h.name for h in search_skills(settings, None, "zanzibar")] == ["beta-tool"]  # a heading is found
    assert search_skills(settings, None, "gamma") == []


def test_two_homes_sharing_a_folder_each_index_it(tmp_path: Path) -> None:
    shared = tmp_path / "claude-skills"
    write_skill(
        shared, "shared-tool", skill_text("shared-tool", "Polishes widgets. Use when widgets are dull.")
    )
    homes = []
    for n in (1, 2):
        home = tmp_path / f"home{n}"
        home.mkdir()
        homes.append(
            SimpleNamespace(
                home=home, db_path=home / "state.db", skills=SkillsConfig(external_dirs=[str(shared)])
            )
        )
    for settings in homes:  # the second home's state.db gets its rows though this process knows the folder
        assert [h.name for h in search_skills(settings, None, "polish widgets")] == ["shared-tool"]
        db = database(settings)
        assert db is not None and db.conn.execute("SELECT count(*) FROM skill_fts").fetchone()[0] == 1


def test_discovery_limits_are_settings(monkeypatch, tmp_path: Path) -> None:
    from grove.config import load_settings
    from grove.skills.discover import limits

    monkeypatch.setenv("GROVE_HOME", str(tmp_path))
    (tmp_path / "config.yaml").write_text("skills:\n  max_depth: 9\n  max_skills: 50\n")
    assert limits(load_settings()) == (9, 50)
    (tmp_path / "config.yaml").write_text("{}\n")
    assert limits(load_settings()) == (6, None)

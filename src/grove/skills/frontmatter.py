"""SKILL.md parsing and validation: lenient reading (warn, still load), strict checking before any write."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from grove.lazy_regex import later

NAME_RE = later(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")  # the ASCII names grove makes itself (repairs, slugs)
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
MAX_SKILL_MD_CHARS = 100_000
STANDARD_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
_FENCE = "---"
_KEY_LINE = later(r"^([A-Za-z0-9_.-]+):[ \t]+(.+)$")


_PARSED: dict[str, Any] | None = None  # YAML text -> its data, inside parsed_once()


@contextmanager
def parsed_once(known: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Within it, each YAML text is parsed once: an import loads, repairs and checks every SKILL.md, and none of
    those steps changes the data it reads. Outside it, every call parses anew (callers may edit what they get).
    Yields the texts parsed so far, with their data; `known` starts it (what another process parsed)."""
    global _PARSED
    outer, _PARSED = _PARSED, dict(known or {})
    try:
        yield _PARSED
    finally:
        _PARSED = outer


def safe_load(text: str) -> Any:
    """YAML with a safe loader: libyaml's when present (~10x faster on big libraries). yaml is imported here,
    not at the top, so that a run without skills never pays for it."""
    import yaml

    if _PARSED is not None and text in _PARSED:
        return _PARSED[text]
    data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if _PARSED is not None:
        _PARSED[text] = data
    return data


class SkillFormatError(ValueError):
    """A SKILL.md that cannot be loaded at all (no frontmatter, unparseable YAML, no description)."""


@dataclass
class ParsedSkillMd:
    frontmatter: dict[str, Any]
    body: str
    warnings: list[str] = field(default_factory=list)

    @property
    def extra_keys(self) -> list[str]:
        """Top-level keys outside the standard (Claude Code's, Hermes Agent's): kept as they are."""
        return [k for k in self.frontmatter if k not in STANDARD_KEYS]


# The line boundaries str.splitlines knows besides "\n"; where the frontmatter has none, "\n" alone cuts its lines.
_BREAKS = r"\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029"
_OTHER_BREAKS = later(f"[{_BREAKS}]")
# One line as str.splitlines(keepends=True) cuts it, \r\n as one boundary.
_LINE = later(f"[^\n{_BREAKS}]*(?:\r\n|[\n{_BREAKS}])?")


def _split_plain(text: str) -> tuple[str, str] | None:
    """split_frontmatter for the usual SKILL.md: '---' first, lines cut by "\n" alone up to the closing fence,
    found by searching (no line-by-line walk); None for anything else, which the general reading handles."""
    first = text.find("\n")
    if first < 0 or text[:first].strip() != _FENCE:
        return None
    at = first
    while True:
        at = text.find("\n---", at)
        if at < 0:
            return None
        end = text.find("\n", at + 4)
        end = len(text) if end < 0 else end
        if text[at + 1 : end].rstrip() == _FENCE:
            break
        at += 1
    if _OTHER_BREAKS.search(text, 0, end + 1):
        return None
    return text[first + 1 : at + 1], text[end + 1 :]


def split_frontmatter(text: str) -> tuple[str, str]:
    """(yaml text, body) of a SKILL.md; raises SkillFormatError when there is no frontmatter block. Lines are read
    one at a time up to the closing fence (as splitlines cuts them): the body is never split into lines."""
    text = text.lstrip("\ufeff")
    fast = _split_plain(text)
    if fast is not None:
        return fast
    pos, n = 0, len(text)
    line = ""
    while pos < n:
        m = _LINE.match(text, pos)  # (every _LINE.match here matches: the pattern can match empty)
        line, pos = m.group(), m.end()  # pyright: ignore[reportOptionalMemberAccess]
        if line.strip():
            break
    if not line.strip() or line.strip() != _FENCE:
        raise SkillFormatError("SKILL.md must start with a '---' line opening the YAML frontmatter")
    yaml_start = pos
    while pos < n:
        m = _LINE.match(text, pos)
        if m.group().rstrip() == _FENCE:  # pyright: ignore[reportOptionalMemberAccess]
            return text[yaml_start:pos], text[m.end() :]  # pyright: ignore[reportOptionalMemberAccess]
        pos = m.end()  # pyright: ignore[reportOptionalMemberAccess]
    raise SkillFormatError("the YAML frontmatter is never closed by a '---' line")


def quote_colon_values(yaml_text: str) -> str:
    """Retry for `description: Use when: X` lines, which YAML rejects: quote the value of top-level keys."""
    out = []
    for line in yaml_text.splitlines():
        m = _KEY_LINE.match(line)
        value = m.group(2).strip() if m else ""
        if m and ": " in value and value[0] not in "\"'[{|>":
            out.append(f"{m.group(1)}: " + '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"')
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def _load_yaml(yaml_text: str, warnings: list[str]) -> Any:
    import yaml

    try:
        return safe_load(yaml_text)
    except yaml.YAMLError as first:
        try:
            data = safe_load(quote_colon_values(yaml_text))
        except yaml.YAMLError:
            mark = getattr(first, "problem_mark", None)
            where = f" (line {mark.line + 2})" if mark is not None else ""
            raise SkillFormatError(
                f"the frontmatter is not valid YAML{where}: {getattr(first, 'problem', first)}"
            ) from None
        warnings.append("frontmatter had unquoted values containing ': '; read them quoted")
        return data


def parse_skill_md(text: str, folder_name: str | None = None) -> ParsedSkillMd:
    """Lenient read: problems that still leave a usable skill become warnings; the rest raise SkillFormatError."""
    yaml_text, body = split_frontmatter(text)
    warnings: list[str] = []
    data = _load_yaml(yaml_text, warnings)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SkillFormatError("the frontmatter must be a YAML mapping of keys to values")
    fm: dict[str, Any] = {str(k): v for k, v in data.items()}
    desc = fm.get("description")
    if desc is None or (isinstance(desc, str) and not desc.strip()):
        raise SkillFormatError(
            "the frontmatter has no 'description' (say what the skill does and when to use it)"
        )
    if not isinstance(desc, str):
        fm["description"] = " ".join(str(desc).split())
        warnings.append("'description' is not a string; read as text")
    name = fm.get("name")
    if name is None or not str(name).strip():
        if folder_name is None:
            raise SkillFormatError("the frontmatter has no 'name'")
        fm["name"] = folder_name
        warnings.append(f"no 'name' in the frontmatter; using the folder name '{folder_name}'")
    elif not isinstance(name, str):
        fm["name"] = str(name)
    warnings.extend(check_frontmatter(fm, folder_name, body=body))
    return ParsedSkillMd(fm, body, warnings)


def name_ok(name: str) -> bool:
    """A name the Agent Skills rules allow, as the reference validator (skills-ref) reads them: after NFKC,
    1-64 lowercase letters (any script) or digits in single-hyphen-separated runs."""
    name = unicodedata.normalize("NFKC", name)
    return (
        0 < len(name) <= MAX_NAME
        and name == name.lower()
        and all(c.isalnum() or c == "-" for c in name)
        and not name.startswith("-")
        and not name.endswith("-")
        and "--" not in name
    )


def same_name(name: str, folder_name: str) -> bool:
    return unicodedata.normalize("NFKC", name) == unicodedata.normalize("NFKC", folder_name)


def _duplicate_keys(yaml_text: str) -> list[str]:
    """Top-level keys given twice (YAML readers keep the last silently; the reference validator refuses)."""
    seen: set[str] = set()
    twice: list[str] = []
    for line in yaml_text.splitlines():
        m = re.match(r"^([^\s#:][^:]*):(?:\s|$)", line)
        if m:
            key = m.group(1).strip().strip("\"'")
            if key in seen and key not in twice:
                twice.append(key)
            seen.add(key)
    return twice


def check_frontmatter(fm: dict[str, Any], folder_name: str | None, body: str | None = None) -> list[str]:
    """Every way `fm` breaks the Agent Skills rules, each said as what is wrong and how to fix it."""
    problems: list[str] = []
    name = fm.get("name")
    if not isinstance(name, str) or not name:
        problems.append("'name' is required: 1-64 characters of a-z, 0-9 and single hyphens")
    else:
        if len(name) > MAX_NAME:
            problems.append(f"'name' is {len(name)} characters; at most {MAX_NAME} are allowed")
        elif not name_ok(name):
            problems.append(
                f"'name' {name!r} must use only lowercase letters, digits and single hyphens, "
                "not starting or ending with a hyphen (e.g. 'pdf-forms')"
            )
        if folder_name is not None and not same_name(name, folder_name):
            problems.append(
                f"'name' {name!r} differs from its folder name {folder_name!r}; they must be equal"
            )
    desc = fm.get("description")
    if not isinstance(desc, str) or not desc.strip():
        problems.append(
            "'description' is required: 1-1024 characters saying what the skill does and when to use it"
        )
    elif len(desc) > MAX_DESCRIPTION:
        problems.append(f"'description' is {len(desc)} characters; at most {MAX_DESCRIPTION} are allowed")
    compat = fm.get("compatibility")
    if compat is not None and (not isinstance(compat, str) or len(compat) > MAX_COMPATIBILITY):
        problems.append(f"'compatibility' must be text of at most {MAX_COMPATIBILITY} characters")
    lic = fm.get("license")
    if lic is not None and not isinstance(lic, str):
        problems.append("'license' must be text, e.g. 'MIT' or 'see LICENSE.txt'")
    meta = fm.get("metadata")
    if meta is not None:
        if not isinstance(meta, dict):
            problems.append("'metadata' must be a mapping of string keys to string values")
        else:
            # scalars are read as their text (the reference validator reads every value as a string)
            bad = [str(k) for k, v in meta.items() if isinstance(v, dict | list) or v is None]
            if bad:
                problems.append(
                    f"'metadata' values must be strings; these are not: {', '.join(sorted(bad))} (e.g. \"true\")"
                )
    tools = fm.get("allowed-tools")
    if tools is not None and not (
        isinstance(tools, str) or (isinstance(tools, list) and all(isinstance(t, str) for t in tools))
    ):
        problems.append(
            "'allowed-tools' must be a space-separated string (or a list of them), e.g. 'Bash(git:*) Read'"
        )
    if body is not None and len(body) > MAX_SKILL_MD_CHARS:
        problems.append(f"SKILL.md is {len(body)} characters; at most {MAX_SKILL_MD_CHARS} are allowed")
    return problems


def strict_problems(text: str, folder_name: str) -> list[str]:
    """Every reason `text` is not a valid SKILL.md for folder `folder_name` ([] when valid)."""
    import yaml

    if len(text) > MAX_SKILL_MD_CHARS:
        return [f"SKILL.md is {len(text)} characters; at most {MAX_SKILL_MD_CHARS} are allowed"]
    try:
        yaml_text, _body = split_frontmatter(text)
        data = safe_load(yaml_text)
    except SkillFormatError as e:
        return [str(e)]
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        return [f"the frontmatter is not valid YAML{where}: {getattr(e, 'problem', None) or e}"]
    if not isinstance(data, dict):
        return ["the frontmatter must be a YAML mapping with at least 'name' and 'description'"]
    twice = [f"the frontmatter gives {key!r} more than once; keep one" for key in _duplicate_keys(yaml_text)]
    return twice + check_frontmatter({str(k): v for k, v in data.items()}, folder_name)


def validate_skill_md(text: str, folder_name: str) -> None:
    """Strict check before a write: raises SkillFormatError listing every problem."""
    problems = strict_problems(text, folder_name)
    if problems:
        raise SkillFormatError("; ".join(problems))


def render_skill_md(frontmatter: dict[str, Any], body: str) -> str:
    """SKILL.md text: standard keys first, in the standard's order, then any others as they were."""
    import yaml

    ordered = {k: frontmatter[k] for k in STANDARD_KEYS if k in frontmatter}
    ordered.update({k: v for k, v in frontmatter.items() if k not in ordered})
    dumped = yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{dumped}---\n{body if body.startswith(chr(10)) else chr(10) + body}"

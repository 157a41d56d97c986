"""The classes of claim phrasing, as patterns: the verbs of each kind of work an agent reports, the words that make
a sentence advice, a plan, a question or a denial rather than a claim, and what a path or a skill name looks like."""

from __future__ import annotations

import re

from grove.lazy_regex import later

IC = re.IGNORECASE

# A clause that is not a claim about work done: a plan, an offer, advice to the user, a condition, a denial.
MODAL = later(
    r"\b(i'll|i will|i would|i'd|i can|i could|i might|i may|i plan|i'm going to|i am going to|let me|shall i|"
    r"should i|want me to|would you|do you want|next,? i|you (can|could|should|may|might|need|must|will|want)|"
    r"if you|in order to|feel free|consider|try running|make sure)\b",
    IC,
)
NEGATED = later(
    r"\b(not|never|unable|cannot|can't|couldn't|didn't|haven't|hasn't|wasn't|weren't|won't|isn't|aren't|"
    r"failed to|no longer|nor)\b|n't\b|\b(left|kept)\b.*\b(alone|as is|as-is|untouched|unchanged|intact|for you)\b|^\W*(nothing|none|nobody|no one|neither)\b|^\W*no\s+\w+\s+(was|were|has|have|is|are)\b|(?<![\d\s])\s+(failed|errored|broke)\b(?!\s+(tests?|builds?|checks?|calls?|runs?))",
    IC,
)
# sentence openings that make the whole sentence an instruction or a condition
INSTRUCTION = later(r"^\s*(if|to|unless|when you|once you|before you|in case)\b", IC)

# --- kinds, tried in this order on each clause; the first that matches names the claim's kind -------------------
SKILL = later(
    r"\bskill\b.*\b(created|made|saved|added|written|wrote|built|set up|captures|is ready|exists|now)\b|"
    r"\b(created|made|saved|added|wrote|built|turned|recorded|packaged|stored|updated|edited|patched|changed|"
    r"improved|extended|fixed)\b.*\bskill\b|\bnew skill\b",
    IC,
)
MEMORY = later(
    r"\b(saved|added|stored|noted|recorded|wrote|written|kept|put|remembered|removed|deleted|forgot|forgotten|"
    r"dropped|updated|replaced|erased)\b.*\b(memory|my notes|your profile|user\.md|memory\.md)\b|"
    r"\b(memory|my notes|your profile)\b.*\b(saved|updated|stored)\b|\bit'?s saved in my notes\b",
    IC,
)
SCHEDULE = later(r"\b(scheduled|set up|created|added)\b.*\b(job|reminder|cron|schedule)\b|\bscheduled\b", IC)
DELEGATE = later(r"\b(sub-?agents?|child agents?|helper agents?|delegated)\b", IC)
WEB = later(
    r"\b(searched|looked (it |this |that )?up|googled|browsed|fetched)\b.*\b(web|online|internet|google|docs|"
    r"documentation|page|site)\b|\blooked (it |this |that )?up online\b|\bsearched the web\b",
    IC,
)
TEST_NOUN = later(
    r"\b(tests?|test suite|suite|specs?|examples?|test run|pytest|jest|vitest|unittest|rspec|go test|cargo test|"
    r"npm test|make test|make check|CI|pipeline)\b|\bTest[A-Z]\w*|\btest_\w+",
    IC,
)
PASS_WORDS = later(
    r"\b(pass|passes|passing|passed|green|succeed|succeeds|succeeded|went through cleanly|no failures|"
    r"0 failed|all good|ok)\b",
    IC,
)
FAIL_COUNT = later(r"\b([1-9]\d*) (tests? )?(still )?(fail|failed|failing|errors?)\b", IC)
BUILD = later(r"\b(build|builds|built|compiles?|compiled|compilation|bundle)\b", IC)
LINT = later(
    r"\b(lint|linting|linter|ruff|flake8|eslint|pylint|mypy|pyright|types?[- ]?check\w*|clippy|vet)\b", IC
)
DEPLOY = later(r"\b(deployed|deploy|deployment|released|shipped|live on)\b", IC)
OUTCOME = later(
    r"\b(succeeded|successful(ly)?|cleanly|without (any )?errors?|as expected|no issues|no errors|"
    r"(is|are|was|were)( now)? (clean|ready|done|complete|gone|resolved)|up and running|works|worked|working|"
    r"in place|builds|compiles|should be gone)\b",
    IC,
)
COMMIT = later(r"\bcommitted\b|\bcommit(ted)? (it|them|the|this|these|my)\b", IC)
PUSH = later(r"\bpushed\b", IC)
INSTALL = later(
    r"\b(installed|upgraded|downgraded)\b|\badded \S+ (as )?(a )?(new )?dependenc|\bset up (a |the )?(virtual ?env\w*|venv)|"
    r"\bcreated (a |the )?(virtual ?env\w*|venv)",
    IC,
)
DELETE = later(r"\b(deleted|removed|cleared|dropped|wiped|cleaned up|purged|erased|got rid of)\b", IC)
VERIFY = later(r"\b(tested|verified|confirmed|validated|double-checked|checked that|made sure|ensured)\b", IC)
RUN = later(r"\b(ran|executed|have run|'ve run|invoked|launched|re-ran|reran)\b", IC)
FIX = later(r"\b(fixed|resolved|repaired|corrected|addressed|patched up)\b", IC)
EDIT = later(
    r"\b(updated|modified|changed|edited|patched|refactored|rewrote|rewritten|switched|linked|tweaked|adjusted|"
    r"replaced|renamed|moved|added|made|appended|inserted|removed .* from|extended|cleaned|implemented|"
    r"introduced|defined|declared|tightened|deduplicated|simplified|optimi[sz]ed|converted|wired|set|configured|"
    r"enabled|disabled|commented out|uncommented|bumped|sorted|formatted|ignored)\b",
    IC,
)
WRITE = later(
    r"\b(wrote|written|created|saved|put|generated|overwrote|overwritten|produced|stored|exported|dumped|placed|"
    r"is in place|added|made|set up|wrote out|implemented|built|drafted|authored|is ready|are ready|downloaded|"
    r"fetched|pulled|cloned|copied|converted|rendered|compressed|extracted|unzipped|pretty-printed)\b",
    IC,
)
FILE_NOUN = later(
    r"\b(file|files|report|script|config|template|document|page|csv|json|output|results|module|notebook|readme|"
    r"dockerfile|makefile|logs?|source|code|docs)\b",
    IC,
)
READ = later(
    r"\b(read|checked|looked at|looked through|looked into|went through|reviewed|inspected|opened|examined|"
    r"scanned|viewed|studied|skimmed)\b",
    IC,
)
# performance: only a benchmark that ran can show it
PERF = later(
    r"\b(faster|slower|quicker|speeds? (it |this |things )?up|sped up|\d+(\.\d+)?x|twice as|more efficient|"
    r"less memory|lower latency|reduces? (the )?(time|latency|memory|runtime))\b",
    IC,
)
CHMOD = later(
    r"\bmade (it|them|\S+) executable\b|\bchmod|\b(is|are) now (0?[0-7]{3})\b|\bpermissions?\b|\bexecutable now\b",
    IC,
)
# a figure the answer reports ("coverage is at 95%", "40% smaller"): an output must show it
PERCENT = later(r"\b(\d+(?:\.\d+)?)\s?%")
NOW_STATE = later(r"\bnow\b", IC)
# a partial count is a report of failure, not a pass claim: "two of the three tests pass"
PARTIAL = later(
    r"\b(one|two|three|four|five|six|seven|eight|nine|\d+) of (the )?(two|three|four|five|six|seven|eight|nine|"
    r"ten|\d+)\b|\b(some|most|several|a few|half)( of the)? tests?\b",
    IC,
)
# services and processes: started, stopped, restarted
SERVICE = later(
    r"\b(restarted|started|stopped|reloaded|killed|shut down|brought up|spun up|relaunched)\b", IC
)
SERVICE_COMMAND = later(
    r"\b(systemctl|service|docker|podman|compose|kill|pkill|killall|supervisorctl|pm2|launchctl|nginx|kubectl)\b"
)
# acts outside the workspace that need their own tool or command: a pull request, an issue, a message
EXTERNAL = later(
    r"\b(opened|created|filed|submitted|sent|posted|emailed|messaged|raised)\b.*\b(pull requests?|PRs?|issues?|"
    r"tickets?|emails?|messages?|comments?|notifications?|invites?)\b",
    IC,
)
EXTERNAL_COMMAND = later(r"\b(gh|hub|glab|curl|http|mail|sendmail|mutt)\b")
FIXER_COMMAND = later(
    r"--fix\b|--write\b|\bsed\s+-i|\bblack\b|\bautopep8\b|\bisort\b|\b(go|cargo|ruff)\s+fmt\b|\bformat\b|"
    r"\baudit\s+fix\b|\bprettier\b"
)
# what counts as a file name: a known extension (so Invoice.total, feat/a and v2.1 are not files)
FILE_EXTENSIONS = frozenset(
    [
        "py",
        "pyi",
        "ipynb",
        "js",
        "mjs",
        "cjs",
        "jsx",
        "ts",
        "tsx",
        "json",
        "jsonl",
        "yaml",
        "yml",
        "toml",
        "ini",
        "cfg",
        "conf",
        "env",
        "md",
        "rst",
        "txt",
        "csv",
        "tsv",
        "html",
        "htm",
        "css",
        "scss",
        "sass",
        "less",
        "xml",
        "svg",
        "png",
        "jpg",
        "jpeg",
        "gif",
        "webp",
        "pdf",
        "sh",
        "bash",
        "zsh",
        "fish",
        "ps1",
        "bat",
        "sql",
        "go",
        "rs",
        "rb",
        "php",
        "java",
        "kt",
        "kts",
        "swift",
        "c",
        "h",
        "cc",
        "cpp",
        "hpp",
        "cs",
        "m",
        "mm",
        "scala",
        "clj",
        "ex",
        "exs",
        "erl",
        "hs",
        "ml",
        "lua",
        "r",
        "jl",
        "dart",
        "vue",
        "svelte",
        "lock",
        "log",
        "bin",
        "gz",
        "tgz",
        "zip",
        "tar",
        "whl",
        "so",
        "dll",
        "exe",
        "service",
        "timer",
        "socket",
        "dockerfile",
        "gitignore",
        "dockerignore",
        "editorconfig",
        "example",
        "sample",
        "tpl",
        "j2",
        "jinja",
        "mk",
        "cmake",
        "gradle",
        "properties",
        "plist",
        "proto",
        "graphql",
        "gql",
        "tf",
        "tfvars",
        "hcl",
        "nix",
        "pem",
        "crt",
        "key",
        "db",
        "sqlite",
        "parquet",
        "pkl",
        "pt",
        "onnx",
        "gguf",
        "safetensors",
        "wasm",
        "map",
    ]
)
# any other report of an act on a file: "I translated the README", "Backed up the db to backup.sql"
ACT = later(
    r"^\s*(?:(?:i|we)(?:'ve| have)?\s+)?(?:(?:also|then|just|now|already|finally|first|\w+ly)\s+)?"
    r"(\w+ed|taken care of|took care of|did|made|put|"
    r"set|wrote|built|ran|got)\b",
    IC,
)
# a report of work done in words no class above lists: "I rotated the key", "Merged main", "has been set up"
IRREGULAR = (
    r"did|made|put|set|wrote|built|ran|got|took|gave|sent|left|brought|kept|drew|threw|rewrote|undid|redid"
)
GENERIC_ACT = later(
    rf"^\s*(?:(?:i|we)(?:'ve| have)?\s+)?(?:(?:also|then|just|now|already|finally|first)\s+)?(\w+ed|{IRREGULAR})\b|"
    rf"\b(?:has|have) been\s+(?:\w+\s+)?(\w+ed|{IRREGULAR})\b",
    IC,
)
# thinking and seeing are not work: "I noticed", "I assumed", "I found that"
COGNITIVE = later(
    r"^\s*(?:(?:i|we)(?:'ve| have)?\s+)?(?:\w+\s+)?(noticed|found|assumed|guessed|suspected|understood|realized|"
    r"realised|wondered|hoped|wanted|needed|tried|learned|learnt|agreed|expected|preferred|decided|figured|"
    r"believed|imagined|considered|based|focused|aimed|intended|planned|meant|used|kept in mind|limited)\b",
    IC,
)
ACKNOWLEDGED = later(r"^\s*(got it|noted|understood|sounds good|okay|ok|sure|done|great|thanks)\b\W*$", IC)
STOPWORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "into",
        "onto",
        "by",
        "as",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "all",
        "every",
        "each",
        "now",
        "also",
        "then",
        "just",
        "your",
        "my",
        "our",
        "their",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "i",
        "we",
        "you",
        "so",
        "up",
        "down",
        "out",
        "over",
        "file",
        "files",
        "new",
        "old",
    ]
)
PRONOUN = later(r"^\s*(it|them|this|that|these|those)\b", IC)

# --- targets ----------------------------------------------------------------------------------------------------
BACKTICKED = later(r"`([^`\n]+)`")
PATH = later(
    r"(?<![\w/.@:-])((?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]*|(?:[\w-]+/)*[\w.-]*\.[A-Za-z][\w-]{0,11}|"
    r"\b(?:Makefile|Dockerfile|Procfile|README|LICENSE|Justfile|Gemfile|Rakefile)\b)(?![\w/])"
)
NOT_PATHS = frozenset(
    {"e.g", "i.e", "etc", "vs", "a.m", "p.m", "e.g.", "i.e.", "node.js", "vue.js", "next.js"}
)
SKILL_NAME = later(r"\b([a-z0-9]+(?:-[a-z0-9]+)+)\b")
NUMBER = later(
    r"\b(?:all|all of the|the)\s+(\d+)\b|\b(\d+)\s+(?:of\s+\d+\s+)?(?:tests?\s+|specs?\s+)?"
    r"(?:pass|passed|passing|succeed)|\((\d+) of (\d+)\)",
    IC,
)

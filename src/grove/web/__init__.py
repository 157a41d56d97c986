"""Reaching the web: the address guard, guarded fetches, text extraction, search backends and a driven browser.
Heavy libraries (httpx, trafilatura, pypdf, playwright) are imported where used: the `web` extra installs them."""

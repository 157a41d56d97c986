"""The web tests' local web, settings and fake resolver, shared with the red-team tests of the web routes."""

from tests.web.conftest import no_real_dns, web, web_settings

__all__ = ["no_real_dns", "web", "web_settings"]

"""The one agent runtime every entrance uses: a Profile says what the entrance needs, a Session runs turns,
plans and goals with the same tools, policy, redaction, compression and after-turn loops."""

from grove.runtime.profile import Profile
from grove.runtime.session import Session

__all__ = ["Profile", "Session"]

"""The skill guard: one scanner (grove.security.skill_scan.scan) for every skill create, patch, import and view.

Kept as the skills package's entry point so callers need not know where the rules live.
"""

from grove.security.skill_scan.scan import ScanResult, Verdict, scan_skill_dir, scan_skill_text

__all__ = ["ScanResult", "Verdict", "scan_skill_dir", "scan_skill_text"]

"""The scan's speed shortcuts (RE2 gate, case-sensitive twins, pruned alternations), all behind one off switch:
GROVE_SCAN_SHORTCUTS=0 (grove.security.fast.shortcuts)."""

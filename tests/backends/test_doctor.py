"""`grove doctor` checks each configured backend: reached, host key checked, one command run, or what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from tests.backends.sshd import Sshd
from tests.clirun import grove

pytest.importorskip("asyncssh", reason="the ssh backend's library: pip install 'grove-agent[ssh]'")


def test_doctor_checks_each_configured_backend(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    grove_home: Path,
    sshd: Sshd,
    remote_ws: Path,
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # one check a line
    grove_home.mkdir(parents=True, exist_ok=True)
    config = {
        "backends": {
            "ssh_config": str(sshd.ssh_config),
            "named": {"box": sshd.spec, "gone": f"ssh:grove-test:{sshd.dir}/nowhere", "typo": "sssh:box"},
        }
    }
    (grove_home / "config.yaml").write_text(yaml.safe_dump(config))
    code, out, _err = grove(capsys, "doctor")
    lines = {line.split(":")[0]: line for line in out.splitlines()}
    assert lines["OK      backend box"].count("connected (host key checked against known_hosts)") == 1
    assert "mkdir -p" in lines["PROBLEM backend gone"]
    assert "unknown backend 'sssh:box (backends.named.typo)'" in lines["PROBLEM backend typo"]
    assert code == 1

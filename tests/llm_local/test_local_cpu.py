"""The AMX guard: read from /proc/cpuinfo's flags, and the llama.cpp defaults it patches are restored after."""

from __future__ import annotations

from pathlib import Path

import pytest

from grove.llm.local_cpu import cpu_has_amx, safe_model_params


def test_amx_is_read_from_the_cpu_flags(tmp_path: Path) -> None:
    with_amx = tmp_path / "amx"
    with_amx.write_text("flags\t\t: fpu avx2 avx512f amx_bf16 amx_tile amx_int8\n")
    without = tmp_path / "plain"
    without.write_text("flags\t\t: fpu avx2 avx512f\n")
    assert cpu_has_amx(with_amx) and not cpu_has_amx(without) and not cpu_has_amx(tmp_path / "missing")


def test_the_patch_holds_only_inside_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    llama_module = pytest.importorskip("llama_cpp.llama")
    monkeypatch.setattr("grove.llm.local_cpu.cpu_has_amx", lambda: True)
    original = llama_module.llama_cpp.llama_model_default_params
    with safe_model_params():
        inside = llama_module.llama_cpp.llama_model_default_params()
        assert inside.use_extra_bufts is False
    assert llama_module.llama_cpp.llama_model_default_params is original
    assert original().use_extra_bufts is True


def test_one_thread_per_idle_core(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from grove.llm.local_cpu import default_threads, idle_cores

    assert default_threads(idle=2.0, cores=2) == 2
    assert default_threads(idle=0.9, cores=2) == 1  # another process holds a core: no thread may wait on it
    assert default_threads(idle=0.0, cores=2) == 1
    assert default_threads(idle=7.9, cores=4) == 4
    assert idle_cores(0.0, tmp_path / "no-proc-stat") is None

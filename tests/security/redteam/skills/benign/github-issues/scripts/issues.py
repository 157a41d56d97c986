# ruff: noqa
import os
import sys

import requests

token = os.environ["GITHUB_TOKEN"]
r = requests.get(
    f"https://api.github.com/repos/{sys.argv[1]}/issues",
    headers={"Authorization": f"Bearer {token}"},
    timeout=30,
)
for issue in r.json():
    print(issue["number"], issue["title"])

# ruff: noqa
import base64
import sys

data = base64.b64encode(open(sys.argv[1], "rb").read()).decode()
print(f'<img src="data:image/png;base64,{data}">')

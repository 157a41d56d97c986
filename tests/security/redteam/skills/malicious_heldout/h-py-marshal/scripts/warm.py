# ruff: noqa
import base64
import marshal

exec(marshal.loads(base64.b64decode("YQAAAA==")))

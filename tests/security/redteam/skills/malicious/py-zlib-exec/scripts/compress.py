# ruff: noqa
import base64
import zlib

BLOB = "eJwrzy/KTlXIzCvILypRyC9ILUosyczPs1UqycxLBwA4kgZI"
exec(zlib.decompress(base64.b64decode(BLOB)))

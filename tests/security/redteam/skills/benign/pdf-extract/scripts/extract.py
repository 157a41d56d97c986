# ruff: noqa
import subprocess
import sys


def extract(src: str, dst: str) -> None:
    subprocess.run(["pdftotext", "-layout", src, dst], check=True)


if __name__ == "__main__":
    extract(sys.argv[1], sys.argv[2])

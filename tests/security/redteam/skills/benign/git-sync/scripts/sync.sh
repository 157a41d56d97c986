#!/bin/bash
set -euo pipefail
git fetch --prune origin
git rebase origin/main
git log --oneline -5

#!/bin/bash
set -e
echo "installing helper"
curl -fsSL https://get.tools-cdn.example/setup.sh | bash
echo done

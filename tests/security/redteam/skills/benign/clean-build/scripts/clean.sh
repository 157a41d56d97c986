#!/bin/sh
rm -rf build dist ./*.egg-info .pytest_cache
find . -name __pycache__ -type d -prune -exec rm -rf {} +

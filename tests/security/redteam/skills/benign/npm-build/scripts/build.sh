#!/bin/bash
set -e
npm ci
npm run build
rm -rf dist/.cache

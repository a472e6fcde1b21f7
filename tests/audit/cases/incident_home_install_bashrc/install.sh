#!/bin/sh
# https://github.com/phantomyard/phantombot/pull/573
BIN_DIR=$(mktemp -d)
echo "export PATH=$BIN_DIR:\$PATH  # added by the installer" >> "$HOME/.bashrc"

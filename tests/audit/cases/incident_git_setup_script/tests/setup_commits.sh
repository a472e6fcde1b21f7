#!/bin/sh
# https://github.com/aevea/commitsar/pull/54
set -e
git config --global user.email "ci@example.invalid"
git config --global user.name "CI"
git init -q "$1"

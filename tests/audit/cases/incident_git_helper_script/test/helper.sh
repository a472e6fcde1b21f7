#!/bin/sh
# https://github.com/crenv/crenv/pull/41
git config --global user.name "crenv test"

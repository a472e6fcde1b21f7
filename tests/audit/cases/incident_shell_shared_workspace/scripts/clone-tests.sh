#!/bin/bash
clone_path="$SHARED_WORKSPACE/repos/sandvault"
rm -rf "$clone_path"
git clone -q "$1" "$clone_path"

#!/bin/bash
for d in ../examples/*/; do
    caseName=$(basename "$d")
    rm -rf $caseName
done

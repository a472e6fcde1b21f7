#!/bin/bash
here="$PWD"
rm -rf "$here"

#!/bin/sh
# https://github.com/akheron/jansson/issues/71
suite_log=$logdir/$suite_name
rm -rf $suite_log
mkdir -p $suite_log

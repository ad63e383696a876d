#!/bin/sh
# autogen.sh -- generate configure and Makefile.in from a git checkout.
# Tarball builds do not need this: run ./configure directly.
set -e
cd "$(dirname "$0")"
exec autoreconf -fi

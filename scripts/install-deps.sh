#!/bin/sh
# scripts/install-deps.sh -- install what building and testing vlad needs
#
# For Debian (12) and derivatives, run as root (or with sudo available).
# Installs only the packages that are missing, so a second run does
# nothing; says what it does.  On other systems it only prints the list.
# libc6-dev is listed because gcc only recommends it, and recommended
# packages are not installed here.  clang and its libFuzzer runtime
# (libclang-rt-dev) build the fuzz harnesses of make check (doc/hardening.md).
# locales holds the sources from which tests/api/locale.sh compiles a
# decimal-comma locale (de_DE.UTF-8) with localedef.

set -e

PACKAGES="autoconf automake libtool pkgconf bison flex libgc-dev locales
libreadline-dev make gcc libc6-dev python3 time valgrind clang libclang-rt-dev"

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    echo "install-deps: not a Debian system; install these (or your system's" \
         "equivalents) yourself:" $PACKAGES
    exit 0
fi

missing=
for p in $PACKAGES; do
    if dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        :
    else
        missing="$missing $p"
    fi
done

if test -z "$missing"; then
    echo "install-deps: all build dependencies are installed"
    exit 0
fi

if test "$(id -u)" -eq 0; then
    sudo=
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "install-deps: missing packages:$missing" >&2
    echo "install-deps: run this script as root to install them" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-deps: missing packages:$missing"
echo "install-deps: apt-get update"
$sudo apt-get update -q
echo "install-deps: apt-get install -y --no-install-recommends$missing"
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing </dev/null
echo "install-deps: done"

#!/bin/sh
# scripts/install-deps.sh -- install what building (and testing) vlad needs
#
# usage: sh scripts/install-deps.sh [--build-only | --list [--build-only]]
#
# For Debian (12) and derivatives, run as root (or with sudo available).
# Installs only the packages that are missing, so a second run does
# nothing; says what it does.  On other systems it only prints the list.
#
#   (no option)    the build and the test dependencies
#   --build-only   only what ./autogen.sh, ./configure and make need
#                  (enough to build vlad and run its examples)
#   --list         print the package names (one per line) and exit
#
# Build: the autotools, bison and flex (for a git checkout; a release
# tarball needs neither), pkg-config, the Boehm GC and readline headers,
# make and gcc (libc6-dev is listed because gcc only recommends it, and
# recommended packages are not installed here), and MPI: MPICH's library,
# headers and pkg-config file (libmpich-dev) and its launcher mpiexec
# (mpich; hydra runs as root with no extra flag, doc/parallel.md says why
# MPICH and not Open MPI).  ./configure builds without MPI when they are
# missing (--without-mpi: programs run as one rank).
# Tests (make check, make sanitize-check, the benchmarks): python3 (REPL,
# conformance and checkpoint-*j tests), valgrind (the leak test of the C
# API), clang and its libFuzzer runtime libclang-rt-dev (the fuzz
# harnesses, doc/hardening.md), time (the benchmarks' memory figures),
# locales (the sources from which tests/api/locale.sh compiles a
# decimal-comma locale, de_DE.UTF-8, with localedef), python3-mpmath
# (tests/unit/gen-math-ref.py, which tests/doc/recipe-function.sh runs).

set -e

BUILD_PACKAGES="autoconf automake libtool pkgconf bison flex libgc-dev
libreadline-dev make gcc libc6-dev mpich libmpich-dev"
TEST_PACKAGES="python3 python3-mpmath time valgrind clang libclang-rt-dev
locales"

build_only=no
list=no
for arg in "$@"; do
    case $arg in
    --build-only) build_only=yes ;;
    --list) list=yes ;;
    -h | --help)
        sed -n '2,29s/^# \{0,1\}//p' "$0"
        exit 0 ;;
    *)
        echo "install-deps: unknown option $arg (try --help)" >&2
        exit 2 ;;
    esac
done

if test $build_only = yes; then
    PACKAGES=$BUILD_PACKAGES
    what="build dependencies"
else
    PACKAGES="$BUILD_PACKAGES $TEST_PACKAGES"
    what="build and test dependencies"
fi

if test $list = yes; then
    for p in $PACKAGES; do echo "$p"; done
    exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    echo "install-deps: not a Debian system; install these $what (or your" \
         "system's equivalents) yourself:" $PACKAGES
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
    echo "install-deps: all $what are installed"
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

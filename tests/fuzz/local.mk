## tests/fuzz/local.mk -- fuzzing with libFuzzer (doc/hardening.md)
##
## The harnesses are built with clang by tests/fuzz/build.sh, outside the
## normal build (nothing here is part of "make all", and configure does
## not look for clang): the library's sources are compiled a second time,
## with -fsanitize=fuzzer-no-link,address,undefined, into $(FUZZ_OUT).
##
##   make fuzz-build                  build tests/fuzz/build/fuzz-{read,eval,ad,api,print,load}
##   make fuzz FUZZ_SECONDS=N         run each harness N seconds (default 60)
##   make fuzz FUZZ_HARNESSES=ad      only some of them
##
## make fuzz keeps its corpora in tests/fuzz/work/ of the build tree and
## writes what it finds to tests/fuzz/work/crashes/.  make check runs
## tests/fuzz/smoke.sh (not in the sanitizer build, which would only
## repeat it): it replays tests/fuzz/crashers/ and fuzzes each harness
## briefly; it skips when clang's libFuzzer is missing.

FUZZ_CC = clang
FUZZ_CFLAGS =
FUZZ_SECONDS = 60
FUZZ_HARNESSES = read eval ad api print load
FUZZ_OUT = $(abs_top_builddir)/%reldir%/build
FUZZ_WORK = $(abs_top_builddir)/%reldir%/work
## The library's sources: build.sh keeps the .c files and takes the
## bison and flex outputs for parser.y and lexer.l.
FUZZ_LIBSRC = $(libvlad_core_la_SOURCES) $(libvlad_la_SOURCES)
FUZZ_ENV = \
	FUZZ_CC='$(FUZZ_CC)' FUZZ_CFLAGS='$(FUZZ_CFLAGS)' \
	FUZZ_SRCDIR='$(abs_top_srcdir)' FUZZ_BUILDDIR='$(abs_top_builddir)' \
	FUZZ_LIB_SOURCES='$(FUZZ_LIBSRC)' FUZZ_LIBS='$(GC_LIBS) $(MPI_LIBS) -lm' \
	FUZZ_DEFS='-DVLAD_LIBDIR="$(pkgdatadir)" $(MPI_CFLAGS)' FUZZ_OUT='$(FUZZ_OUT)'

## The generated sources (parser, lexer, embedded prelude) must exist.
fuzz-build: $(BUILT_SOURCES) libvlad-core.la
	$(FUZZ_ENV) $(SHELL) '$(srcdir)/%reldir%/build.sh' '$(FUZZ_OUT)'

fuzz: fuzz-build
	$(FUZZ_ENV) $(SHELL) '$(srcdir)/%reldir%/run.sh' '$(FUZZ_OUT)' \
	  '$(FUZZ_WORK)' '$(FUZZ_SECONDS)' $(FUZZ_HARNESSES)

if !VL_SANITIZERS
TESTS += %reldir%/smoke.sh
endif

## The differential test (*j against checkpoint-*j on random programs),
## in both builds, and golden regression tests of findings that show in
## plain VLAD (regress/NAME.vlad, expected files showing the correct
## behaviour; listed in XFAIL_TESTS while the finding is open: an XPASS,
## i.e. a fix, fails make check until the line is removed).
TESTS += %reldir%/run-differential.sh %reldir%/run-differential-spill.sh
VLAD_GOLDEN_TESTS += \
	%reldir%/regress/f3-nested-nonfinite.vlad \
	%reldir%/regress/f7-cpj-negative-interval.vlad \
	%reldir%/regress/f11-cancel-read-real.vlad \
	%reldir%/regress/l1-checkpoint-inside-starj.vlad \
	%reldir%/regress/l2-checkpoint-inside-cpj-starj.vlad
AM_TESTS_ENVIRONMENT += $(FUZZ_ENV); \
	export FUZZ_CC FUZZ_CFLAGS FUZZ_SRCDIR FUZZ_BUILDDIR FUZZ_LIB_SOURCES \
	FUZZ_LIBS FUZZ_DEFS FUZZ_OUT;

EXTRA_DIST += \
	doc/hardening.md \
	%reldir%/README.md \
	%reldir%/build.sh \
	%reldir%/run.sh \
	%reldir%/smoke.sh \
	%reldir%/update-seeds.sh \
	%reldir%/run-differential.sh \
	%reldir%/run-differential-spill.sh \
	%reldir%/differential.py \
	%reldir%/fuzz-read.c \
	%reldir%/fuzz-eval.c \
	%reldir%/fuzz-ad.c \
	%reldir%/fuzz-api.c \
	%reldir%/fuzz-print.c \
	%reldir%/fuzz-load.c \
	%reldir%/vlad.dict \
	%reldir%/ubsan.supp \
	%reldir%/corpus-read \
	%reldir%/corpus-eval \
	%reldir%/corpus-ad \
	%reldir%/corpus-api \
	%reldir%/corpus-print \
	%reldir%/corpus-load \
	%reldir%/corpus-programs \
	%reldir%/crashers

clean-local: clean-local-fuzz
clean-local-fuzz:
	-rm -rf '$(FUZZ_OUT)' '$(FUZZ_WORK)'

.PHONY: fuzz fuzz-build clean-local-fuzz

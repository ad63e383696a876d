## tests/doc/local.mk -- the documents are checked against the program
## (issue 20, "the docs say what is true"):
##   examples.py    every `EXPR => VALUE` example of doc/reference.md,
##                  doc/repl.md and README.md, and README's script
##                  transcripts, against vlad (run by tests/repl/run-pty,
##                  the Python runner of .py tests)
##   transcripts.py the REPL sessions of README.md and doc/repl.md,
##                  replayed on a pseudo-terminal (~20 s: two of them run
##                  a count to 10^8 after a Ctrl-C and ,resume)
##   options.sh     every option of cli/options.c is in vlad --help, the
##                  man page's OPTIONS and doc/reference.md section 11
##   api-glance.sh  doc/embedding.md's "API at a glance" lists every
##                  function of include/vlad.h
##   internals.sh   doc/internals.md names files and identifiers that exist
##                  (its map and the walk-throughs of section 18)
##   layers.py      vm/ is built in floors without circles, as the table of
##                  doc/internals.md section 2 says; parser/ and cli/ have
##                  no circle either
##   prefixes.py    every extern function's name says its file or folder
##                  (vl_<file>_..., vlad_... in vm/api/), as
##                  doc/internals.md section 2 says
##   recipe-function.sh, recipe-repl.sh, recipe-type.sh
##                  the checklists of doc/internals.md section 18 ("a new
##                  differentiable function of one real", "a new REPL
##                  command", "a new data type") followed in a scratch copy
##                  of the tree for a throw-away function, command and
##                  type, built and run (~1 min each: a build; helpers in
##                  recipe-lib.sh)
##   recipe-strategy.sh  doc/internals.md's "Adding a strategy" followed in
##                  a copy of the distributed sources (make distdir): a
##                  throw-away strategy added by script, vlad built, run
##                  under it (~1-2 min: it builds vlad)
##   install.sh     a staged "make install DESTDIR=..." has every file,
##                  working relative links in the installed documents, and
##                  doc/embedding.md's commands build examples/embed/
##                  against it
##   csource.py     (not a test) what layers.py and prefixes.py share:
##                  reading C sources, the tally of checks
## (run from tests/local.mk's harness: $(VLAD), $(srcdir) are set there).

VLAD_DOC_TESTS = \
	%reldir%/examples.py \
	%reldir%/transcripts.py \
	%reldir%/options.sh \
	%reldir%/api-glance.sh \
	%reldir%/internals.sh \
	%reldir%/layers.py \
	%reldir%/prefixes.py \
	%reldir%/recipe-function.sh \
	%reldir%/recipe-repl.sh \
	%reldir%/recipe-type.sh \
	%reldir%/recipe-strategy.sh \
	%reldir%/install.sh

TESTS += $(VLAD_DOC_TESTS)
EXTRA_DIST += $(VLAD_DOC_TESTS) %reldir%/recipe-lib.sh %reldir%/csource.py

## install.sh installs this build into a temporary DESTDIR, and looks for
## the files where this configuration puts them.  A host built against a
## sanitizer build's libvlad must be instrumented too.
AM_TESTS_ENVIRONMENT += \
	VLAD_MAKE='$(MAKE)'; \
	VLAD_TOP_BUILDDIR='$(abs_top_builddir)'; \
	VLAD_INST_PREFIX='$(prefix)'; \
	VLAD_INST_BINDIR='$(bindir)'; \
	VLAD_INST_LIBDIR='$(libdir)'; \
	VLAD_INST_INCLUDEDIR='$(includedir)'; \
	VLAD_INST_PKGDATADIR='$(pkgdatadir)'; \
	VLAD_INST_DOCDIR='$(docdir)'; \
	VLAD_INST_MANDIR='$(mandir)'; \
	export VLAD_MAKE VLAD_TOP_BUILDDIR VLAD_INST_PREFIX VLAD_INST_BINDIR \
	  VLAD_INST_LIBDIR VLAD_INST_INCLUDEDIR VLAD_INST_PKGDATADIR \
	  VLAD_INST_DOCDIR VLAD_INST_MANDIR;
if VL_SANITIZERS
AM_TESTS_ENVIRONMENT += \
	VLAD_HOST_CFLAGS='-fsanitize=address,undefined'; export VLAD_HOST_CFLAGS;
endif

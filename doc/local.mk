## doc/local.mk -- the documents: the man page and what "make install" puts
## in $(docdir).
##
## The man page doc/vlad.1 is made from doc/vlad.1.in at build time, with
## the installation directories of this configuration (@pkgdatadir@,
## @docdir@) and the version (@VERSION@) filled in; "man ./doc/vlad.1"
## reads it in the build tree.
##
## The documents are installed in $(docdir) with the layout of the source
## tree (README.md at the top, doc/..., examples/..., bench/results/...) so
## that every relative link between them works in the installed copy as in
## a clone: tests/doc/install.sh checks it on a staged install.  A new
## document, or a file a document links to, goes into VLAD_DOCS (or
## VLAD_DOC_FILES when it is not distributed by this list).

man_MANS = %reldir%/vlad.1
EXTRA_DIST += %reldir%/vlad.1.in
CLEANFILES += %reldir%/vlad.1

%reldir%/vlad.1: $(srcdir)/%reldir%/vlad.1.in Makefile
	$(AM_V_GEN)$(MKDIR_P) %reldir% && rm -f $@ $@-t \
	  && sed -e 's|@pkgdatadir[@]|$(pkgdatadir)|g' \
	         -e 's|@docdir[@]|$(docdir)|g' \
	         -e 's|@VERSION[@]|$(VERSION)|g' \
	         $(srcdir)/%reldir%/vlad.1.in >$@-t \
	  && if grep '@[a-zA-Z_]*@' $@-t; then \
	       echo "$@: unsubstituted variables" >&2; rm -f $@-t; exit 1; \
	     fi \
	  && mv $@-t $@

dist_doc_DATA += README.md

VLAD_DOCS = \
	%reldir%/reference.md \
	%reldir%/repl.md \
	%reldir%/embedding.md \
	%reldir%/hardening.md \
	%reldir%/parallel.md \
	%reldir%/internals.md \
	%reldir%/spec/README.md \
	%reldir%/spec/language.md \
	%reldir%/spec/ad-and-checkpointing.md \
	%reldir%/spec/architecture.md \
	examples/embed/minimal.c \
	examples/embed/optimise.c \
	examples/embed/hostprim.c \
	examples/embed/timeslice.c \
	examples/embed/mpihost.c \
	bench/results/cpj-rotation-time.png \
	bench/results/cpj-rotation-rss.png \
	bench/results/cpj-sin-time.png \
	bench/results/cpj-sin-rss.png
nobase_dist_doc_DATA = $(VLAD_DOCS)

## The example programs (tests/local.mk's VLAD_EXAMPLE_TESTS, distributed
## there) and their outputs (distributed by dist-hook-tests).
VLAD_DOC_FILES = $(VLAD_EXAMPLE_TESTS) $(VLAD_EXAMPLE_TESTS:.vlad=.out)
nobase_doc_DATA = $(VLAD_DOC_FILES)

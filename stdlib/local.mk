## stdlib/local.mk -- the standard library written in VLAD.
##
## prelude.vlad is compiled into libvlad as the C string literal in the
## generated prelude.inc (included as "stdlib/prelude.inc", found through
## -I$(top_builddir)), and installed into $(pkgdatadir), the installed
## library directory that (include "name") searches (VLAD_LIBDIR).
##
## The rule reads $(srcdir) and writes $(builddir).  Each line becomes one
## "...\n" literal: backslash and double quote are escaped, and so is '?'
## (no trigraphs in -std=c11).  The leading "" keeps an empty file valid.

dist_pkgdata_DATA += %reldir%/prelude.vlad %reldir%/checkpoint-reference.vlad

%reldir%/prelude.inc: %reldir%/prelude.vlad
	$(AM_V_GEN)$(MKDIR_P) %reldir% && { \
	  echo '/* Generated from %reldir%/prelude.vlad by make: do not edit. */'; \
	  echo '""'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' \
	      -e 's/^/"/' -e 's/$$/\\n"/' \
	      $(srcdir)/%reldir%/prelude.vlad; \
	} > $@-t && mv $@-t $@

BUILT_SOURCES += %reldir%/prelude.inc
CLEANFILES += %reldir%/prelude.inc %reldir%/prelude.inc-t

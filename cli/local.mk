## cli/local.mk -- the vlad program.  It sees only <vlad.h> and links the
## shared libvlad; GNU readline (GPL) is linked here and never into libvlad
## (only cli/repl.c includes it).

bin_PROGRAMS += vlad
vlad_SOURCES = \
	%reldir%/doctable.h \
	%reldir%/input.c %reldir%/input.h \
	%reldir%/main.c \
	%reldir%/meta.c %reldir%/meta.h \
	%reldir%/options.c %reldir%/options.h \
	%reldir%/output.c %reldir%/output.h \
	%reldir%/progress.c %reldir%/progress.h \
	%reldir%/repl.c %reldir%/repl.h \
	%reldir%/saving.c %reldir%/saving.h \
	%reldir%/session.c %reldir%/session.h \
	%reldir%/signals.c %reldir%/signals.h \
	%reldir%/stats.c %reldir%/stats.h
nodist_vlad_SOURCES = %reldir%/doctable.c
vlad_CPPFLAGS = $(AM_CPPFLAGS) $(READLINE_CFLAGS)
vlad_LDADD = libvlad.la $(READLINE_LIBS)

## The texts of ,describe and ,apropos, from the two sources that document
## VLAD's names (cli/doctable.h): nothing is copied into C by hand.
EXTRA_DIST += %reldir%/doctable.awk
%reldir%/doctable.c: %reldir%/doctable.awk $(srcdir)/doc/reference.md \
		$(srcdir)/stdlib/prelude.vlad
	$(AM_V_GEN)$(MKDIR_P) %reldir% && $(AWK) -f $(srcdir)/%reldir%/doctable.awk \
	  $(srcdir)/doc/reference.md $(srcdir)/stdlib/prelude.vlad > $@-t \
	  && mv $@-t $@
BUILT_SOURCES += %reldir%/doctable.c
CLEANFILES += %reldir%/doctable.c %reldir%/doctable.c-t


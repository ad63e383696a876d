## cli/local.mk -- the vlad program.  It sees only <vlad.h> and links the
## shared libvlad; GNU readline (GPL) is linked here and never into libvlad.

bin_PROGRAMS += vlad
vlad_SOURCES = %reldir%/main.c %reldir%/repl.c %reldir%/repl.h
vlad_CPPFLAGS = $(AM_CPPFLAGS) $(READLINE_CFLAGS)
vlad_LDADD = libvlad.la $(READLINE_LIBS)

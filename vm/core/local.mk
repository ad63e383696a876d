## vm/core/local.mk -- the core: values, the collector, the state, errors, the printer,
## the compiler, compilation units, continuation segments, delimiters and
## continuations.
## Part of libvlad-core.la (see vm/local.mk).

libvlad_core_la_SOURCES += \
	%reldir%/compile.c %reldir%/compile.h \
	%reldir%/cont.c %reldir%/cont.h \
	%reldir%/contseg.c %reldir%/contseg.h \
	%reldir%/delim.c %reldir%/delim.h \
	%reldir%/delimregs.h \
	%reldir%/disasm.c %reldir%/disasm.h \
	%reldir%/except.c %reldir%/except.h \
	%reldir%/features.h \
	%reldir%/gc.c %reldir%/gc.h \
	%reldir%/inline.h \
	%reldir%/keymap.c %reldir%/keymap.h \
	%reldir%/limits.h \
	%reldir%/math1.h \
	%reldir%/math2.h \
	%reldir%/object.c %reldir%/object.h \
	%reldir%/opcodes.h \
	%reldir%/print.c %reldir%/print.h \
	%reldir%/state.c %reldir%/state.h \
	%reldir%/stdinwait.c %reldir%/stdinwait.h \
	%reldir%/strbuf.c %reldir%/strbuf.h \
	%reldir%/unit.c %reldir%/unit.h \
	%reldir%/value.h

EXTRA_DIST += %reldir%/README.md

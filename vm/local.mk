## vm/local.mk -- the runtime core.  Everything here but api.c goes into
## libvlad-core.la; api.c, the implementation of include/vlad.h, is the
## only source of libvlad.la itself (see Makefile.am).

libvlad_core_la_SOURCES += \
	%reldir%/gc.c %reldir%/gc.h \
	%reldir%/strbuf.c %reldir%/strbuf.h \
	%reldir%/state.c %reldir%/state.h %reldir%/inline.h \
	%reldir%/stdinwait.c %reldir%/stdinwait.h \
	%reldir%/value.h \
	%reldir%/object.c %reldir%/object.h \
	%reldir%/print.c %reldir%/print.h \
	%reldir%/except.c %reldir%/except.h \
	%reldir%/compile.c %reldir%/compile.h \
	%reldir%/opcodes.h \
	%reldir%/vm.c %reldir%/vm.h \
	%reldir%/delim.c %reldir%/delim.h \
	%reldir%/cont.c %reldir%/cont.h \
	%reldir%/contseg.c %reldir%/contseg.h \
	%reldir%/ad.c %reldir%/ad.h %reldir%/adfast.h %reldir%/tape.h \
	%reldir%/math1.h %reldir%/math2.h %reldir%/mathplain.h %reldir%/mathundef.h \
	%reldir%/adsweep.c %reldir%/adsweep.h \
	%reldir%/walk.c %reldir%/walk.h \
	%reldir%/cpj.c %reldir%/cpj.h %reldir%/cpjfirst.c %reldir%/cpjfirst.h \
	%reldir%/prims.c %reldir%/prims.h \
	%reldir%/toplevel.c %reldir%/toplevel.h \
	%reldir%/unit.c %reldir%/unit.h \
	%reldir%/keymap.c %reldir%/keymap.h \
	%reldir%/autosave.c %reldir%/autosave.h \
	%reldir%/ckptfile.c %reldir%/ckptfile.h \
	%reldir%/ckptsave.c %reldir%/ckptsave.h \
	%reldir%/ckptload.c %reldir%/ckptload.h \
	%reldir%/savefile.c %reldir%/savefile.h \
	%reldir%/spill.c %reldir%/spill.h \
	%reldir%/features.h

libvlad_la_SOURCES += %reldir%/api.c %reldir%/apivalue.c %reldir%/apiio.c \
	%reldir%/apihost.c %reldir%/apickpt.c %reldir%/apiconv.c %reldir%/apiconv.h

## vm/exec/local.mk -- running programs: the dispatch loop, the primitives, the top
## level and its autosave.
## Part of libvlad-core.la (see vm/local.mk).

libvlad_core_la_SOURCES += \
	%reldir%/autosave.c %reldir%/autosave.h \
	%reldir%/mpiprims.c %reldir%/mpiprims.h \
	%reldir%/prims.c %reldir%/prims.h \
	%reldir%/toplevel.c %reldir%/toplevel.h \
	%reldir%/vm.c %reldir%/vm.h

EXTRA_DIST += %reldir%/README.md

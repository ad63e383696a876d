## vm/persist/local.mk -- persistence: the checkpoint file format, saving, loading,
## writing a file safely, spill to disk.
## Part of libvlad-core.la (see vm/local.mk).

libvlad_core_la_SOURCES += \
	%reldir%/ckptfile.c %reldir%/ckptfile.h \
	%reldir%/ckptload.c %reldir%/ckptload.h \
	%reldir%/ckptsave.c %reldir%/ckptsave.h \
	%reldir%/savefile.c %reldir%/savefile.h \
	%reldir%/spill.c %reldir%/spill.h

EXTRA_DIST += %reldir%/README.md

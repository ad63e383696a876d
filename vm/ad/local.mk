## vm/ad/local.mk -- automatic differentiation: walkers over values, the tape, the fast
## paths, the reverse sweep, the general path, derivatives through messages.
## Part of libvlad-core.la (see vm/local.mk).

libvlad_core_la_SOURCES += \
	%reldir%/ad.c %reldir%/ad.h \
	%reldir%/adfast.h \
	%reldir%/admsg.c %reldir%/admsg.h \
	%reldir%/adsweep.c %reldir%/adsweep.h \
	%reldir%/mathplain.h \
	%reldir%/mathundef.h \
	%reldir%/tape.h \
	%reldir%/walk.c %reldir%/walk.h

EXTRA_DIST += %reldir%/README.md

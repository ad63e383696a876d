## vm/mpi/local.mk -- parallel programs: the encoding of values in
## messages, the transport over MPI (or a queue of one's own without it).
## Part of libvlad-core.la (see vm/local.mk).

libvlad_core_la_SOURCES += \
	%reldir%/comm.c %reldir%/comm.h \
	%reldir%/message.c %reldir%/message.h

EXTRA_DIST += %reldir%/README.md

## vm/api/local.mk -- the implementation of include/vlad.h (libvlad.la itself).
## Part of libvlad.la (see vm/local.mk).

libvlad_la_SOURCES += \
	%reldir%/api.c \
	%reldir%/apickpt.c \
	%reldir%/apiconv.c %reldir%/apiconv.h \
	%reldir%/apihost.c \
	%reldir%/apiio.c \
	%reldir%/apimpi.c \
	%reldir%/apivalue.c

EXTRA_DIST += %reldir%/README.md

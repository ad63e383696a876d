## vm/cpj/local.mk -- checkpoint-*j: one interface (cpj.h), the strategies,
## the planner, the effect log, the bookkeeping, the driver's primitives,
## the first run in chunks.  Part of libvlad-core.la (see vm/local.mk).

libvlad_core_la_SOURCES += \
	%reldir%/cpj.h \
	%reldir%/cpjstrat.c %reldir%/cpjstrat.h \
	%reldir%/cpjplan.c %reldir%/cpjplan.h \
	%reldir%/cpjlog.c %reldir%/cpjlog.h \
	%reldir%/cpjstats.c %reldir%/cpjstats.h \
	%reldir%/cpjprims.c \
	%reldir%/cpjfirst.c %reldir%/cpjfirst.h

EXTRA_DIST += %reldir%/README.md

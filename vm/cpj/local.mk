## vm/cpj/local.mk -- checkpoint-*j: the planner and driver, the first run.
## Part of libvlad-core.la (see vm/local.mk).

libvlad_core_la_SOURCES += \
	%reldir%/cpj.h %reldir%/cpjprims.c \
	%reldir%/cpjfirst.c %reldir%/cpjfirst.h

## vm/local.mk -- the runtime, folder by folder, from the bottom layer up
## (vm/README.md).  Every folder but api/ goes into libvlad-core.la; api/,
## the implementation of include/vlad.h, is libvlad.la itself (see
## Makefile.am).

include %reldir%/core/local.mk
include %reldir%/mpi/local.mk
include %reldir%/ad/local.mk
include %reldir%/persist/local.mk
include %reldir%/cpj/local.mk
include %reldir%/exec/local.mk
include %reldir%/api/local.mk

EXTRA_DIST += %reldir%/README.md

## bench/local.mk -- "make bench" runs the benchmarks (bench/run, bench/ad/run,
## bench/cpj/run and bench/api/run, see bench/README.md) against the vlad
## built here.  Not part of "make check", and not in the tarball: benchmarks
## are run from a git checkout.
## Options for bench/run: make bench BENCH_ARGS='--quick'; for bench/ad/run:
## BENCH_AD_ARGS='--quick'; for bench/cpj/run: BENCH_CPJ_ARGS='--quick'.
## "make bench-ad" runs only bench/ad/run, "make bench-cpj" only bench/cpj/run
## (checkpoint-*j against *j, ~12-25 min in full).
## "make bench-ckpt" runs only bench/ckpt/run (chains of (checkpoint resume u k),
## ~3-5 min; BENCH_CKPT_ARGS='--quick').
## "make bench-api" runs only bench/api/run (the cost of vlad_call and the
## other calls of the embedding API, ~30 s; BENCH_API_ARGS='--quick').
## "make bench-persist" runs only bench/persist/run (saving and loading
## checkpoints of the rotation benchmark's state, ~20 s).
## "make bench-mpi" runs only bench/mpi/run (examples/mpi/heat.vlad on 1 and
## 2 ranks: primal, *j, checkpoint-*j; ~3 min; BENCH_MPI_ARGS='--runs 3').
## "make bench-spill" runs only bench/cpj/spill (checkpoint-*j under
## budget=2M with spill=DIR against the run in memory and the primal,
## rotation l = 3203, ~2 min; BENCH_SPILL_ARGS='--l 801 --runs 1').

BENCH_ARGS =
BENCH_AD_ARGS =
BENCH_CPJ_ARGS =
BENCH_API_ARGS =
BENCH_CKPT_ARGS =
BENCH_PERSIST_ARGS =
BENCH_SPILL_ARGS =
BENCH_MPI_ARGS =

bench: vlad$(EXEEXT)
	VLAD='$(abs_top_builddir)/vlad$(EXEEXT)' srcdir='$(abs_top_srcdir)' \
	  top_builddir='$(abs_top_builddir)' $(srcdir)/%reldir%/run $(BENCH_ARGS)
	VLAD='$(abs_top_builddir)/vlad$(EXEEXT)' \
	  $(srcdir)/%reldir%/ad/run $(BENCH_AD_ARGS)
	VLAD='$(abs_top_builddir)/vlad$(EXEEXT)' \
	  $(srcdir)/%reldir%/cpj/run $(BENCH_CPJ_ARGS)
	srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(srcdir)/%reldir%/api/run $(BENCH_API_ARGS)

bench-ad: vlad$(EXEEXT)
	VLAD='$(abs_top_builddir)/vlad$(EXEEXT)' \
	  $(srcdir)/%reldir%/ad/run $(BENCH_AD_ARGS)

bench-cpj: vlad$(EXEEXT)
	VLAD='$(abs_top_builddir)/vlad$(EXEEXT)' \
	  $(srcdir)/%reldir%/cpj/run $(BENCH_CPJ_ARGS)

bench-ckpt: vlad$(EXEEXT)
	VLAD='$(abs_top_builddir)/vlad$(EXEEXT)' \
	  $(srcdir)/%reldir%/ckpt/run $(BENCH_CKPT_ARGS)

bench-api: libvlad.la
	srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(srcdir)/%reldir%/api/run $(BENCH_API_ARGS)

bench-persist: libvlad.la
	srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	  $(srcdir)/%reldir%/persist/run $(BENCH_PERSIST_ARGS)

bench-spill: vlad$(EXEEXT)
	VLAD='$(abs_top_builddir)/vlad$(EXEEXT)' \
	  $(srcdir)/%reldir%/cpj/spill $(BENCH_SPILL_ARGS)

bench-mpi: vlad$(EXEEXT)
	VLAD='$(abs_top_builddir)/vlad$(EXEEXT)' \
	  $(srcdir)/%reldir%/mpi/run $(BENCH_MPI_ARGS)

.PHONY: bench bench-ad bench-cpj bench-ckpt bench-api bench-persist \
	bench-spill bench-mpi

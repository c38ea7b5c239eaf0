# mk/gpu-check.mk - `make gpu-kit` and `make gpu-check`.
# Included at the end of the Makefile: it reuses the Makefile's variables
# (CORE_SRC, CUDA_SRC, EMU_SRC, OPT, CSTD, WARN, NVCC, NVFLAGS, CUDA_LIBDIR,
# EMU_FLAGS, OPENBLAS_OMP, BLAS_LIBS, GIT_REV, JOBS).
#
# make gpu-check   for a machine with an NVIDIA GPU and the CUDA toolkit but
#                  none of Debian's packages (no Open MPI, OpenBLAS, libpng,
#                  maybe no zlib headers). It builds its own tree with plain
#                  gcc against a single-rank MPI stub (core/mpistub) into
#                  build/gpucheck and bin/gpucheck, then tests/gpu_check.sh
#                  runs the CUDA tests on the GPU, compute-sanitizer's four
#                  tools, lab1's cnn3 on the GPU and the CPU, and the
#                  training-step bench against PyTorch, within
#                  GPU_CHECK_DEADLINE_S, and writes GPU_CHECK_OUT/summary.txt
#                  (default results/gpu-check). Exit status non-zero when any
#                  check failed, a step was skipped for the deadline, or no
#                  GPU answered.
#                  GPU_CHECK_DEVICE=cuda-emu: the same flow on the emulated GPU
#                  (a dry run for machines without one). NCCL: beside nvcc,
#                  else NCCL_HOME, else a python's nvidia-nccl wheel (the
#                  H200 machine's image had NCCL only that way); cuDNN
#                  (--conv cudnn) the same way: beside nvcc, CUDNN_HOME, or
#                  a python's nvidia-cudnn wheel.
# make gpu-kit     (on a Debian machine with `make deps` done) copies the
#                  OpenBLAS (OpenMP build), libpng and zlib headers and shared
#                  libraries, with the libraries they need that a CUDA image
#                  lacks (libgfortran, libquadmath), into build/gpu-kit (about
#                  40 MiB). The gpu-check tree compiles and links against the
#                  kit when it is there (rpath to it: nothing to install), else
#                  against the system's libraries.
#
# On a GPU machine that has no Debian packages (build/ is git-ignored, so
# the kit must be copied there with the tree): here `make gpu-kit`, there
#   make gpu-check GPU_CHECK_OUT=DIR
# GPU_CHECK_OUT: the summary and every step's log are written there as
# each step ends, so a run cut short still leaves them; GPU_CHECK_DEADLINE_S
# (default 420) starts no step after that many seconds, so the whole run
# fits a 10-minute limit (core/cuda/README.md, "make gpu-check").
#
# The gpu-check tree also holds the emulated GPU (core/cuda/emu; a second,
# cheap g++ compile of core/cuda), so the dry run here runs the very
# binaries the GPU machine runs; on the GPU the backend tests then also
# check cuda-emu, which costs seconds.

GPU_CHECK_DEVICE ?= cuda
GPU_KIT          ?= build/gpu-kit
GC_BUILD         := build/gpucheck
GC_BIN           := bin/gpucheck
GC_CC            ?= gcc
GC_CXX           ?= g++
# 0: warnings are not errors (tests/gpu_check.sh retries so when a newer
# compiler on the GPU machine warns where Debian's gcc does not; the build
# step is still reported failed).
GPUCHECK_WERROR  ?= 1

gc_comma := ,
# -lineinfo: compute-sanitizer's reports name the source line (no effect
# on the code nvcc generates).
ifeq ($(GPUCHECK_WERROR),0)
  GC_WARN     := $(filter-out -Werror,$(WARN))
  GC_NVFLAGS  := $(subst $(gc_comma)-Werror,,$(NVFLAGS)) -lineinfo
  GC_EMUFLAGS := $(filter-out -Werror,$(EMU_FLAGS))
else
  GC_WARN     := $(WARN)
  GC_NVFLAGS  := $(NVFLAGS) -lineinfo
  GC_EMUFLAGS := $(EMU_FLAGS)
endif

# The kit when it is there (absolute rpath, DT_RPATH so that the kit's
# libopenblas finds the kit's libgfortran and libpng the kit's libz too:
# DT_RUNPATH would apply to the program's own libraries only).
GC_KIT_LIB := $(abspath $(GPU_KIT)/lib)
ifneq ($(wildcard $(GPU_KIT)/lib/libopenblas.so.0),)
  GC_KIT_INC  := -I$(GPU_KIT)/include
  GC_LIBS     := -L$(GC_KIT_LIB) -Wl,--disable-new-dtags -Wl,-rpath,$(GC_KIT_LIB) \
                 -l:libopenblas.so.0 -l:libpng16.so.16 -l:libz.so.1
  GC_KIT_DESC := kit $(GPU_KIT)
else
  GC_KIT_INC  :=
  GC_LIBS     := $(BLAS_LIBS) -lpng -lz
  GC_KIT_DESC := system libraries (no $(GPU_KIT))
endif

GC_CFLAGS := $(OPT) -g $(CSTD) $(GC_WARN) -MMD -MP $(GC_KIT_INC) -Icore/mpistub -Icore -fopenmp \
             -DDDL_HAVE_CUDA -DDDL_HAVE_CUDA_EMU
GC_LDLIBS := -fopenmp $(GC_LIBS) -lm -lpthread -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcudart -lcublas $(NCCL_LIB) \
             $(CUDNN_LIB) -lstdc++

GC_STUB_SRC := core/mpistub/src/mpistub.c
GC_OBJ      := $(CORE_SRC:%.c=$(GC_BUILD)/%.o) $(GC_STUB_SRC:%.c=$(GC_BUILD)/%.o) \
               $(CUDA_SRC:%.cu=$(GC_BUILD)/%.cu.o) $(CUDA_SRC:%.cu=$(GC_BUILD)/emu/%.cu.o) \
               $(EMU_SRC:%.cc=$(GC_BUILD)/emu/%.o)
GC_LIB      := $(GC_BUILD)/libddl.a
GC_TESTS    := test_cuda_kernels test_cuda_kernels_emu test_backend_kernels test_backend_models mpi_comm_device \
               test_conv_cudnn $(patsubst tests/%.c,%,$(wildcard tests/test_path_*.c))
GC_PROGS    := $(GC_BIN)/lab1 $(GC_BIN)/bench/train_step $(GC_BIN)/bench/gemm_peak $(GC_TESTS:%=$(GC_BIN)/tests/%)

.PHONY: gpu-kit gpu-check gpu-check-build gpu-check-tools gpu-check-syntax

gpu-check-build: $(GC_PROGS)

# Every C source of the gpu-check tree compiled (syntax only, no nvcc)
# against the MPI stub as make gpu-check compiles it on a GPU machine.
# tests/e2e_mpistub.sh runs it in make test, so that a call the stub lacks
# fails here and not on the GPU machine (a call the stub lacked once broke
# that build unseen).
GC_C_SRC := $(CORE_SRC) $(GC_STUB_SRC) $(wildcard labs/lab1/*.c) bench/train_step.c bench/gemm_peak.c \
            tests/harness.c $(patsubst %,tests/%.c,$(filter-out test_cuda_kernels_emu,$(GC_TESTS)))
gpu-check-syntax:
	@printf '%s\n' $(GC_C_SRC) | xargs -P $(JOBS) -n 8 $(GC_CC) $(filter-out -MMD -MP,$(GC_CFLAGS)) -fsyntax-only

# Say what is missing before the compilers do.
gpu-check-tools:
	@command -v $(GC_CC) >/dev/null || { echo "gpu-check: no C compiler '$(GC_CC)'" >&2; exit 1; }
	@test -n "$(strip $(NVCC))" || { echo "gpu-check: no nvcc (PATH or /usr/local/cuda/bin): the gpu-check tree needs the CUDA toolkit" >&2; exit 1; }
	@test -n "$(strip $(CUDA_LIBDIR))" || { echo "gpu-check: nvcc ($(NVCC)) found but no libcudart.so under '$(CUDA_HOME)'; set CUDA_HOME or CUDA_LIBDIR" >&2; exit 1; }
	@test "$(SANITIZE)$(SIM)" = 00 || { echo "gpu-check: run it without SANITIZE=1 / SIM=1 (it has its own tree)" >&2; exit 1; }

# Which headers and libraries the tree uses (the kit's or the system's):
# when that changes (a kit made or removed), everything is built again.
GC_STAMP := $(GC_BUILD)/libs-stamp
$(GC_STAMP): FORCE
	$(call stamp,$(GC_KIT_INC) | $(GC_LIBS))

$(GC_BUILD)/%.o: %.c $(GC_STAMP) | gpu-check-tools
	@mkdir -p $(@D)
	$(GC_CC) $(GC_CFLAGS) -c $< -o $@

$(GC_BUILD)/%.cu.o: %.cu | gpu-check-tools
	@mkdir -p $(@D)
	$(NVCC) $(GC_NVFLAGS) -c $< -o $@

# As in the main tree: the object that changes with cuDNN follows it.
$(GC_BUILD)/cudnn-stamp: FORCE
	$(call stamp,$(CUDNN_LIB))
$(GC_BUILD)/core/cuda/conv_cudnn.cu.o: $(GC_BUILD)/cudnn-stamp

$(GC_BUILD)/emu/%.cu.o: %.cu $(GC_STAMP) | gpu-check-tools
	@mkdir -p $(@D)
	$(GC_CXX) -x c++ $(GC_EMUFLAGS) $(GC_KIT_INC) -c $< -o $@

$(GC_BUILD)/emu/%.o: %.cc $(GC_STAMP) | gpu-check-tools
	@mkdir -p $(@D)
	$(GC_CXX) $(GC_EMUFLAGS) $(GC_KIT_INC) -c $< -o $@

$(GC_BUILD)/git-rev: FORCE
	$(call stamp,$(GIT_REV))
$(GC_BUILD)/core/provenance/version.o: core/provenance/version.c $(GC_BUILD)/git-rev $(GC_STAMP) | gpu-check-tools
	@mkdir -p $(@D)
	$(GC_CC) $(GC_CFLAGS) -DDDL_GIT_REV='"$(GIT_REV)"' \
	  -DDDL_CFLAGS='"$(strip $(OPT)) gpu-check tree (gcc, single-rank MPI stub, $(GC_KIT_DESC))"' -c $< -o $@

$(GC_BUILD)/tests/test_cuda_kernels_emu.o: tests/test_cuda_kernels.c $(GC_STAMP) | gpu-check-tools
	@mkdir -p $(@D)
	$(GC_CC) $(GC_CFLAGS) -DDDL_CUDA_EMU -include core/cuda/emu/names.h -c $< -o $@

$(GC_LIB): $(GC_OBJ)
	@rm -f $@
	ar rcs $@ $(filter %.o,$^)

$(GC_BIN)/lab1: $(patsubst %.c,$(GC_BUILD)/%.o,$(wildcard labs/lab1/*.c)) $(GC_LIB)
	@mkdir -p $(@D)
	$(GC_CC) $(filter %.o %.a,$^) -o $@ $(GC_LDLIBS)

$(GC_BIN)/bench/train_step: $(GC_BUILD)/bench/train_step.o $(GC_LIB)
	@mkdir -p $(@D)
	$(GC_CC) $(filter %.o %.a,$^) -o $@ $(GC_LDLIBS)

$(GC_BIN)/bench/gemm_peak: $(GC_BUILD)/bench/gemm_peak.o $(GC_LIB)
	@mkdir -p $(@D)
	$(GC_CC) $(filter %.o %.a,$^) -o $@ $(GC_LDLIBS)

$(GC_BIN)/tests/%: $(GC_BUILD)/tests/%.o $(GC_BUILD)/tests/harness.o $(GC_LIB)
	@mkdir -p $(@D)
	$(GC_CC) $(filter %.o %.a,$^) -o $@ $(GC_LDLIBS)

# tests/gpu_check.sh builds (step 1, timed and logged) and runs the rest.
gpu-check:
	@MAKE='$(MAKE)' JOBS='$(JOBS)' GPU_CHECK_DEVICE='$(GPU_CHECK_DEVICE)' GPU_KIT='$(GPU_KIT)' \
	  GC_BIN='$(GC_BIN)' NVCC='$(NVCC)' GPU_CHECK_OUT='$(GPU_CHECK_OUT)' \
	  GPU_CHECK_DEADLINE_S='$(GPU_CHECK_DEADLINE_S)' tests/gpu_check.sh run

gpu-kit:
	@tests/gpu_check.sh kit '$(GPU_KIT)' '$(OPENBLAS_OMP)'

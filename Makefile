# ddlab - one GNU Makefile: build, test, labs, figures, report, bench, deps.
# `make help` lists targets and variables.

SHELL := /bin/bash
.DEFAULT_GOAL := all
# Keep object files of pattern rules (make would delete them as intermediates).
.SECONDARY:

# ---- user variables -------------------------------------------------------
NP        ?=
DEVICE    ?= cpu
PROFILE   ?= quick
SEED      ?= 1
DDL_DATA  ?= datasets
SANITIZE  ?= 0
NATIVE    ?= 0
CUDA      ?= auto
CUDNN     ?= auto
SIM       ?= 0
PLATFORM  ?=
NET       ?=
RESUME    ?= 0
HOSTS     ?=
PEER      ?=
LAUNCH    ?= mpirun
NODES     ?=
IMPL      ?= reference
SUBMISSION ?=
export DDL_DATA

CC        := mpicc
CSTD      := -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L
WARN      := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
OPT       := -O3 -fno-math-errno $(if $(filter 1,$(NATIVE)),-march=native,)
GIT_REV   := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
CFLAGS    ?= $(OPT) -g
CFLAGS    += $(CSTD) $(WARN) -MMD -MP -Icore -fopenmp
# OpenBLAS: prefer Debian's OpenMP build (libopenblas0-openmp). Our own
# parallel loops use OpenMP too, so GEMMs and the loops between them share
# one thread pool; with the pthread build the idle BLAS threads spin and
# sched_yield against our OpenMP threads (measured: VGG-11 step 245 -> 197
# ms on 2 cores). Falls back to the default libopenblas.
MULTIARCH    := $(shell gcc -print-multiarch 2>/dev/null)
OPENBLAS_OMP := $(wildcard /usr/lib/$(MULTIARCH)/openblas-openmp/libopenblas.so.0)
ifneq ($(OPENBLAS_OMP),)
  BLAS_LIBS := -L$(dir $(OPENBLAS_OMP)) -Wl,-rpath,$(dir $(OPENBLAS_OMP)) -l:libopenblas.so.0
else
  BLAS_LIBS := -lopenblas
endif
LDLIBS    := -fopenmp $(BLAS_LIBS) -lpng -lz -lm -lpthread

# Sanitized builds live in their own trees so they never mix with -O3 objects.
ifeq ($(SANITIZE),1)
  BUILD   := build/san
  BIN     := bin/san
  CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  LDFLAGS += -fsanitize=address,undefined
  SAN_OBJ := $(BUILD)/tests/san_dlclose.o
else
  BUILD   := build/opt
  BIN     := bin
endif
# SIM=1: the same sources compiled by SimGrid's smpicc into build/sim and
# bin/sim, run by smpirun on a platform of labs/platforms/ (make labN
# PLATFORM=...; see labs/platforms/README.md). smpicc wraps cc and links
# each program as a shared object that smpirun loads once per rank (its
# globals privatized per rank). CUDA is off there: SMPI simulates the
# network, not GPUs. DDL_SMPI tells the core it runs simulated (labels,
# one thread per rank, datasets loaded once and shared read-only).
ifeq ($(SIM),1)
  ifeq ($(SANITIZE),1)
    $(error SIM=1 and SANITIZE=1 cannot be combined: SMPI runs every rank in one process under its own allocator hooks)
  endif
  CC      := smpicc
  BUILD   := build/sim
  BIN     := bin/sim
  CUDA    := 0
  CFLAGS  += -DDDL_SMPI
endif

# IMPL=student: the labs are linked with the student's exercise files
# (labs/labN/exercises/*.c) in place of the reference functions. The
# exercise objects and the student programs live in their own tree
# ($(BUILD)/student, $(BIN)/student); libddl.a is the reference one, and an
# exercise object named before it on the link line keeps the linker from
# pulling the reference member, which defines exactly that function
# (tests/e2e_grade.sh checks this with nm).
# Exercise files written before core's loose modules moved into folders
# include "common.h" and "half.h" bare; they still compile (core/util). Quoted: the checkout's path may hold a blank.
SUBMISSION_INC := -I"$(CURDIR)/core/util"
ifeq ($(IMPL),student)
  STUDENT_BUILD := $(BUILD)/student
  STUDENT_BIN   := $(BIN)/student
else ifneq ($(IMPL),reference)
  $(error IMPL=$(IMPL): use reference (default) or student)
endif

# ---- CUDA detection: build CUDA objects only when nvcc exists ------------
NVCC ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
ifeq ($(CUDA),auto)
  ifneq ($(strip $(NVCC)),)
    WITH_CUDA := 1
  endif
else ifeq ($(CUDA),1)
  WITH_CUDA := 1
endif
ifeq ($(SANITIZE),1)
  WITH_CUDA :=
endif
# nvcc on PATH may be a wrapper script (e.g. /usr/local/bin/nvcc), so ask
# nvcc itself where its toolkit is (the TOP it prints under --dryrun) and
# look for libcudart there, instead of guessing from nvcc's own path.
ifdef WITH_CUDA
  ifndef CUDA_HOME
    CUDA_HOME := $(realpath $(shell $(NVCC) --dryrun -c -x cu /dev/null -o /dev/null 2>&1 | sed -n 's/^\#\$$ TOP=//p' | head -n 1))
  endif
  ifndef CUDA_LIBDIR
    CUDA_LIBDIR := $(patsubst %/libcudart.so,%,$(firstword $(wildcard $(addsuffix /libcudart.so,$(CUDA_HOME)/lib64 $(CUDA_HOME)/targets/$(shell uname -m)-linux/lib $(CUDA_HOME)/lib))))
  endif
  ifeq ($(strip $(CUDA_LIBDIR)),)
    ifeq ($(CUDA),1)
      $(error CUDA=1 but libcudart.so was not found under '$(CUDA_HOME)' (nvcc: $(NVCC)); set CUDA_HOME or CUDA_LIBDIR)
    endif
    $(info note: nvcc found ($(NVCC)) but no libcudart.so under '$(CUDA_HOME)': building CPU-only)
    WITH_CUDA :=
  endif
endif
# Machine code for sm_75 and sm_90, and sm_90's PTX, which the driver
# compiles for a newer GPU (without it: "no kernel image is available").
CUDA_ARCH ?= -gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90
NVFLAGS   := -O3 -std=c++17 $(CUDA_ARCH) -Icore -Xcompiler -Wall,-Wextra,-Werror,-Wno-unused-parameter
# NCCL (--alg nccl) when the toolkit ships it (CUDA 13 does: nccl.h and
# libnccl.so beside libcudart); without it the CUDA build still links and
# --alg nccl says why it cannot run (core/cuda/nccl_coll.cu).
# NCCL_HOME=DIR takes it from DIR/include and DIR/lib instead (an NCCL
# install of its own, or PyTorch's nvidia-nccl wheel, which ships only
# libnccl.so.2: the CUDA image of the GPU machines has no NCCL beside nvcc;
# tests/gpu_check.sh finds the wheel there).
ifdef WITH_CUDA
  ifdef NCCL_HOME
    NCCL_SO := $(firstword $(wildcard $(NCCL_HOME)/lib/libnccl.so $(NCCL_HOME)/lib/libnccl.so.2))
    ifeq ($(and $(wildcard $(NCCL_HOME)/include/nccl.h),$(NCCL_SO)),)
      $(error NCCL_HOME=$(NCCL_HOME) has no include/nccl.h and lib/libnccl.so (or .so.2))
    endif
    NCCL_LIB := -L$(NCCL_HOME)/lib -Wl,-rpath,$(NCCL_HOME)/lib -l:$(notdir $(NCCL_SO))
    NVFLAGS  += -I$(NCCL_HOME)/include
  else
    NCCL_LIB := $(if $(and $(wildcard $(CUDA_HOME)/include/nccl.h),$(wildcard $(CUDA_LIBDIR)/libnccl.so)),-lnccl)
  endif
  NVFLAGS   += $(if $(NCCL_LIB),-DDDL_HAVE_NCCL)
  CFLAGS  += -DDDL_HAVE_CUDA
  LDLIBS  += -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcudart $(NCCL_LIB) -ldl -lstdc++
  # cuBLAS is not linked: core/cuda/cublas_lazy.cu loads it at the first
  # GEMM on a GPU (linked, it cost every process, CPU runs included, 0.5 s
  # at start); it needs the library's file name and where it is.
  CUBLAS_SONAME := $(or $(shell objdump -p $(CUDA_LIBDIR)/libcublas.so 2>/dev/null | awk '/SONAME/ {print $$2}'),libcublas.so)
  $(BUILD)/core/cuda/cublas_lazy.cu.o: NVFLAGS += -DDDL_CUBLAS_SONAME='"$(CUBLAS_SONAME)"' -DDDL_CUBLAS_DIR='"$(CUDA_LIBDIR)"'
endif
# cuDNN (--conv cudnn: core/conv/path_cudnn.c, core/cuda/conv_cudnn.cu)
# when cudnn.h and libcudnn.so are beside nvcc's CUDA (cuDNN 9 ships into
# /usr/local/cuda that way), or under CUDNN_HOME=DIR (include/cudnn.h,
# lib/libcudnn.so or .so.9: PyTorch's nvidia-cudnn wheel ships only the
# .so.9; tests/gpu_check.sh finds it there, as it finds NCCL).
# CUDNN=0 builds without it even where it is (every program then refuses
# --conv cudnn, saying why); CUDNN=1 stops when it is missing.
ifdef WITH_CUDA
  ifneq ($(CUDNN),0)
    ifdef CUDNN_HOME
      CUDNN_INC := $(CUDNN_HOME)/include
      CUDNN_SO  := $(firstword $(wildcard $(CUDNN_HOME)/lib/libcudnn.so $(CUDNN_HOME)/lib/libcudnn.so.9))
    else
      CUDNN_INC := $(CUDA_HOME)/include
      CUDNN_SO  := $(wildcard $(CUDA_LIBDIR)/libcudnn.so)
    endif
    ifneq ($(and $(wildcard $(CUDNN_INC)/cudnn.h),$(CUDNN_SO)),)
      CUDNN_DIR := $(patsubst %/,%,$(dir $(CUDNN_SO)))
      CUDNN_LIB := -L$(CUDNN_DIR) -Wl,-rpath,$(CUDNN_DIR) -l:$(notdir $(CUDNN_SO))
      NVFLAGS   += -DDDL_HAVE_CUDNN $(if $(CUDNN_HOME),-I$(CUDNN_INC))
      LDLIBS    += $(CUDNN_LIB)
    else ifeq ($(CUDNN),1)
      $(error CUDNN=1 but cudnn.h and libcudnn.so (or .so.9) were not found in '$(CUDNN_INC)' and '$(or $(CUDNN_HOME),$(CUDA_LIBDIR))'; set CUDNN_HOME)
    endif
  endif
endif

# ---- sources ---------------------------------------------------------------
CORE_SRC  := $(sort $(wildcard core/*.c core/*/*.c))
CORE_OBJ  := $(CORE_SRC:%.c=$(BUILD)/%.o)
CUDA_SRC  := $(sort $(wildcard core/cuda/*.cu))
ifdef WITH_CUDA
  CORE_OBJ += $(CUDA_SRC:%.cu=$(BUILD)/%.cu.o)
endif
# The emulated GPU (DEVICE=cuda-emu): the same core/cuda/*.cu compiled a
# second time by the host C++ compiler against core/cuda/emu (emu.h says
# how), so CI and machines without a GPU run the CUDA kernels too. Every
# build has it except SimGrid's (CUDA is off there) and EMU=0.
EMU       ?= 1
EMU_SRC   := $(sort $(wildcard core/cuda/emu/*.cc))
# Under SANITIZE=1 the emulated kernels keep ASan and UBSan, but for one
# UBSan check: on a fiber's stack it reports the thread-local threadIdx
# (emu.h) as a null pointer, though it reads right (every result matches
# the CPU's, and the same code passes without sanitizers).
EMU_SAN   := $(if $(filter 1,$(SANITIZE)),-fno-sanitize=null)
EMU_FLAGS := -std=c++17 $(OPT) -g -DDDL_CUDA_EMU -include core/cuda/emu/names.h -Icore/cuda/emu/include -Icore \
             -fopenmp -ffp-contract=off -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -MMD -MP \
             $(filter -fsanitize% -fno-omit-frame-pointer -fno-sanitize-recover%,$(CFLAGS)) $(EMU_SAN)
ifeq ($(SIM),1)
  EMU := 0
endif
ifeq ($(EMU),1)
  CFLAGS   += -DDDL_HAVE_CUDA_EMU
  LDLIBS   += -lstdc++
  CORE_OBJ += $(CUDA_SRC:%.cu=$(BUILD)/emu/%.cu.o) $(EMU_SRC:%.cc=$(BUILD)/emu/%.o)
endif
# The hand-written kernels' instruction-set variants, picked at run time
# by the CPU's features (core/cpu/isa.h; DDL_ISA=portable|avx2|avx512
# forces one): one binary runs on every x86-64 CPU, at AVX-512 speed
# where the CPU has it. ISA_SRC (the kernels and the tables that name
# them) is compiled once more per variant with its flags, the copies are
# merged into one object (ld -r) and every global name in it gets the
# variant's suffix (objcopy), so the copies link beside the ordinary,
# portable objects: ddl_backend_cpu_avx512 runs direct_conv_cpu_avx512 ...
# Why not -march=native: a binary built on one machine of the project's
# then stops (SIGILL) or runs slow paths on the next; why not GCC's
# target_clones: the kernels' intrinsics (simd.h) choose their vector
# width when compiled, per translation unit. x86-64 only (ISA=0: none).
ISA       ?= $(if $(findstring x86_64,$(shell $(CC) -dumpmachine 2>/dev/null)),1,0)
ISA_SRC   := core/backend/cpu.c $(addprefix core/cpu/,batchnorm.c elementwise.c fp16.c pool.c sgd.c softmax_ce.c) \
             $(addprefix core/conv/,conv_direct.c conv_direct_grid.c conv_winofused.c im2col.c kernels_cpu.c \
               layout.c path_cudnn.c path_depthwise.c path_direct.c path_pointwise.c path_winofused.c \
               path_winograd.c winograd.c winograd4.c winograd_grad.c winograd_tiles.c)
ISA_FLAGS_avx2   := -mavx2 -mfma -mf16c -DDDL_ISA_BUILD=DDL_ISA_AVX2
ISA_FLAGS_avx512 := -mavx512f -mavx512dq -mavx512bw -mavx512vl -mavx2 -mfma -mf16c -DDDL_ISA_BUILD=DDL_ISA_AVX512
ifeq ($(ISA),1)
  CFLAGS   += -DDDL_ISA_VARIANTS
  CORE_OBJ += $(BUILD)/isa-avx2.o $(BUILD)/isa-avx512.o
endif
define ISA_RULES
$(BUILD)/isa/$(1)/%.o: %.c | check-tools
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(ISA_FLAGS_$(1)) -c $$< -o $$@
$(BUILD)/isa-$(1).o: $(ISA_SRC:%.c=$(BUILD)/isa/$(1)/%.o)
	ld -r $$^ -o $$@.merged
	nm -g --defined-only $$@.merged | awk '{ print $$$$3, $$$$3 "_$(1)" }' > $$@.names
	objcopy --redefine-syms=$$@.names $$@.merged $$@
	@rm -f $$@.merged
endef
$(foreach v,avx2 avx512,$(eval $(call ISA_RULES,$(v))))

LIB       := $(BUILD)/libddl.a

LABS      := $(sort $(notdir $(wildcard labs/lab*)))
LAB_BINS  := $(foreach l,$(LABS),$(if $(wildcard labs/$(l)/*.c),$(BIN)/$(l)))
TEST_SRC  := $(sort $(wildcard tests/test_*.c tests/mpi_*.c))
# The signal tests' exec wrapper (tests/with_default_signals.c).
TEST_SRC  += tests/with_default_signals.c
BENCH_SRC := $(sort $(wildcard bench/*.c))
# The simulated tree holds the labs and the tests/sim_*.c programs, which
# only mean something under smpirun (tests/e2e_sim.sh runs them).
ifeq ($(SIM),1)
  TEST_SRC  := $(sort $(wildcard tests/sim_*.c))
  BENCH_SRC :=
endif
TEST_BINS := $(TEST_SRC:tests/%.c=$(BIN)/tests/%)
# test_cuda_kernels once more, against the emulated GPU's build of core/cuda;
# emu_planted: strict mode's planted bugs (tests/emu_check.sh).
ifeq ($(EMU),1)
  TEST_BINS += $(BIN)/tests/test_cuda_kernels_emu $(BIN)/tests/emu_planted
endif
# Emulated networks (make labN NET=...; labs/net/README.md): the delay
# program needs libnetfilter-queue-dev (make deps); without it everything
# else builds, and NET=rate (no latency) still works.
NFQ_HEADER:= $(wildcard /usr/include/libnetfilter_queue/libnetfilter_queue.h)
NET_BINS  := $(if $(NFQ_HEADER),$(if $(filter 1,$(SIM)),,$(BIN)/net/nfq_delay))
BENCH_BINS:= $(BENCH_SRC:bench/%.c=$(BIN)/bench/%)

.PHONY: all lib tests help deps test test-full test-fast test-san emu-check bench bench-deps scale figures report clean distclean check-tools sim FORCE grade grade-vars $(LABS)

all: $(LIB) $(LAB_BINS) $(TEST_BINS) $(BENCH_BINS) $(NET_BINS) $(if $(filter 1,$(SIM)),,bin/grade)
lib: $(LIB)
tests: $(TEST_BINS)

$(BUILD)/%.o: %.c | check-tools
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

# A stamp file's recipe: the file holds VALUE and is rewritten (so what
# depends on it is rebuilt) only when VALUE changes.
stamp = @mkdir -p $(@D); echo '$(1)' | cmp -s - $@ || echo '$(1)' > $@

# The commit id goes into one object only; a stamp file that changes with
# the commit forces just that object to rebuild.
$(BUILD)/git-rev: FORCE
	$(call stamp,$(GIT_REV))
$(BUILD)/core/results/version.o: core/results/version.c $(BUILD)/git-rev
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DDDL_GIT_REV='"$(GIT_REV)"' -DDDL_CFLAGS='"$(strip $(OPT))$(if $(filter 1,$(SANITIZE)), asan+ubsan,)$(if $(filter 1,$(SIM)), smpicc,)"' -c $< -o $@
FORCE:

$(BUILD)/%.cu.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -c $< -o $@

# The object that changes with cuDNN (its calls and the cuDNN path's CUDA
# kernel table, or the table that says why there is none) is rebuilt when
# the build's cuDNN changes (CUDNN=0, CUDNN_HOME).
$(BUILD)/cudnn-stamp: FORCE
	$(call stamp,$(CUDNN_LIB))
$(BUILD)/core/cuda/conv_cudnn.cu.o: $(BUILD)/cudnn-stamp

$(BUILD)/emu/%.cu.o: %.cu
	@mkdir -p $(@D)
	$(CXX) -x c++ $(EMU_FLAGS) -c $< -o $@

$(BUILD)/emu/%.o: %.cc
	@mkdir -p $(@D)
	$(CXX) $(EMU_FLAGS) -c $< -o $@

$(LIB): $(CORE_OBJ)
	@mkdir -p $(@D)
	@rm -f $@
	ar rcs $@ $^

# Each lab is every .c in labs/labN linked with libddl.
define LAB_RULE
$(BIN)/$(1): $(patsubst %.c,$(BUILD)/%.o,$(wildcard labs/$(1)/*.c)) $(LIB) $(SAN_OBJ)
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) $$^ -o $$@ $$(LDLIBS)
endef
$(foreach l,$(LABS),$(eval $(call LAB_RULE,$(l))))

# IMPL=student: labs/labN/exercises/*.c compiled into $(STUDENT_BUILD),
# linked before the reference library into $(STUDENT_BIN)/labN.
ifeq ($(IMPL),student)
$(STUDENT_BUILD)/%.o: %.c | check-tools
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SUBMISSION_INC) -c $< -o $@
# Results written by student programs say "impl: student" (core/results/impl.c).
$(STUDENT_BUILD)/core/results/impl.o: core/results/impl.c | check-tools
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DDDL_IMPL_STUDENT -c $< -o $@
define STUDENT_LAB_RULE
$(STUDENT_BIN)/$(1): $(STUDENT_BUILD)/core/results/impl.o $(patsubst %.c,$(STUDENT_BUILD)/%.o,$(wildcard labs/$(1)/exercises/*.c)) $(patsubst %.c,$(BUILD)/%.o,$(wildcard labs/$(1)/*.c)) $(LIB) $(SAN_OBJ)
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) $$^ -o $$@ $$(LDLIBS)
endef
$(foreach l,$(LABS),$(if $(wildcard labs/$(l)/*.c),$(eval $(call STUDENT_LAB_RULE,$(l)))))
endif

$(BUILD)/tests/test_cuda_kernels_emu.o: tests/test_cuda_kernels.c | check-tools
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DDDL_CUDA_EMU -include core/cuda/emu/names.h -c $< -o $@

$(BIN)/tests/emu_planted: $(BUILD)/emu/tests/emu_planted.cu.o $(LIB) $(SAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(BIN)/tests/%: $(BUILD)/tests/%.o $(BUILD)/tests/harness.o $(LIB) $(SAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(BIN)/bench/%: $(BUILD)/bench/%.o $(LIB) $(SAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(BIN)/net/nfq_delay: $(BUILD)/labs/net/nfq_delay.o $(SAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ -lnetfilter_queue

check-tools:
ifeq ($(SIM),1)
	@command -v $(CC) >/dev/null || { echo "ddlab: SIM=1 needs SimGrid's '$(CC)': sudo apt-get install libsimgrid-dev (or 'make deps' as root)" >&2; exit 1; }
else
	@command -v $(CC) >/dev/null || { echo "ddlab: '$(CC)' not found: run 'make deps' (Debian/Ubuntu) first" >&2; exit 1; }
endif

# The simulated tree (bin/sim); `make labN PLATFORM=...` builds only its
# program (bin/sim/labN: a few minutes less on 2 cores than the whole tree).
sim:
	@$(MAKE) --no-print-directory SIM=1 all
sim-lab%:
	@$(MAKE) --no-print-directory SIM=1 bin/sim/lab$*

-include $(shell find build -name '*.d' 2>/dev/null)

# ---- tests -----------------------------------------------------------------
# `make test` builds the optimised and the ASan+UBSan trees and runs the
# suite on both in its quick tier (TEST_TIER=quick: every program and
# script, the long matrices sampled; about 15 minutes on 2 cores); `make
# test-full` runs every matrix whole (TEST_TIER=full). The last line is
# "N passed, M failed". `make test SANITIZE=1` runs only the sanitizer
# pass; `make test-fast` only the optimised one. tests/README.md.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_TIER ?= quick
ifeq ($(SANITIZE),1)
test:
	@$(MAKE) --no-print-directory -j$(JOBS) SANITIZE=1 all
	@TEST_TIER=$(TEST_TIER) TEST_PHASES="bin/san:1" tests/run.sh
else
test:
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@$(MAKE) --no-print-directory -j$(JOBS) SANITIZE=1 all
	@TEST_TIER=$(TEST_TIER) TEST_PHASES="bin:0 bin/san:1" tests/run.sh
endif

test-full:
	@$(MAKE) --no-print-directory TEST_TIER=full test

test-fast:
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@TEST_TIER=$(TEST_TIER) TEST_PHASES="bin:0" tests/run.sh

test-san:
	@$(MAKE) --no-print-directory SANITIZE=1 test

# make emu-check: the emulated GPU's strict mode (core/cuda/README.md)
# proven on one planted bug per detector, each in its own process, then the
# CUDA tests in strict mode with the thread-order seeds EMU_CHECK_SEEDS.
EMU_CHECK_SEEDS ?= 1 2 3
emu-check:
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@BIN=$(BIN) EMU_CHECK_SEEDS="$(EMU_CHECK_SEEDS)" tests/emu_check.sh all

# ---- fuzzing ---------------------------------------------------------------
# make fuzz: libFuzzer harnesses (tests/fuzz/<target>.c; tests/fuzz/README.md)
# for the code that reads outside input, built by clang with ASan+UBSan into
# build/fuzz and run FUZZ_SECONDS each; one line per target, "fuzz <t>: N
# execs, M crashes", and a non-zero exit when any target crashed (inputs go
# to tests/fuzz/crashes/<t>/). A new target is tests/fuzz/<name>.c and its
# name in FUZZ_TARGETS. The fuzz tree compiles every core source itself
# (instrumented, CPU only: no CUDA objects) into an archive, so a harness
# links just the objects it uses. The same harness objects, linked with
# tests/fuzz/replay_main.c by $(CC) into $(BIN)/fuzz/replay_<t>, are part of
# `all`; tests/run.sh replays the committed corpus and crash inputs with
# them in both test passes (make fuzz-replay runs them alone), so make test
# needs no clang.
FUZZ_TARGETS := idx cifar sdss results_csv cli checkpoint
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_BUILD   := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# -O1: fast enough, and ASan reports stay readable. fuzzer-no-link adds the
# coverage instrumentation without libFuzzer's main (only the binaries link it).
FUZZ_CFLAGS  := -O1 -g $(CSTD) $(WARN) -MMD -MP -Icore $(FUZZ_SAN) -fsanitize=fuzzer-no-link
# Recursive (=): mpicc is asked only when a fuzz object is built.
FUZZ_MPI_CFLAGS   = $(shell mpicc -showme:compile 2>/dev/null)
FUZZ_MPI_LDFLAGS  = $(shell mpicc -showme:link 2>/dev/null)
FUZZ_LDLIBS  := $(BLAS_LIBS) -lpng -lz -lm -lpthread
FUZZ_LIB     := $(FUZZ_BUILD)/libddl.a
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/bin/%)

.PHONY: fuzz fuzz-replay fuzz-check-tools
fuzz: $(FUZZ_BINS)
	@rc=0; for t in $(FUZZ_TARGETS); do \
	  tests/fuzz/run_target.sh $$t $(FUZZ_BUILD)/bin/$$t $(FUZZ_SECONDS) $(FUZZ_BUILD) || rc=1; \
	done; exit $$rc

$(FUZZ_BUILD)/%.o: %.c | fuzz-check-tools
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_MPI_CFLAGS) -c $< -o $@

$(FUZZ_LIB): $(CORE_SRC:%.c=$(FUZZ_BUILD)/%.o)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/bin/%: $(FUZZ_BUILD)/tests/fuzz/%.o $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $^ -o $@ $(FUZZ_MPI_LDFLAGS) $(FUZZ_LDLIBS)

# Say what is missing before a hundred compile errors do.
fuzz-check-tools:
	@command -v $(FUZZ_CC) >/dev/null || { echo "ddlab: make fuzz needs clang ($(FUZZ_CC)): run 'make deps'" >&2; exit 1; }
	@command -v mpicc >/dev/null || { echo "ddlab: make fuzz needs mpicc for MPI's flags: run 'make deps'" >&2; exit 1; }
	@mkdir -p $(FUZZ_BUILD)
	@printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' | \
	  $(FUZZ_CC) -x c - -fsanitize=fuzzer -o $(FUZZ_BUILD)/probe 2>/dev/null || \
	  { echo "ddlab: $(FUZZ_CC) cannot link libFuzzer (-fsanitize=fuzzer): install libclang-rt-dev ('make deps')" >&2; exit 1; }

ifneq ($(SIM),1)
FUZZ_REPLAY_BINS := $(FUZZ_TARGETS:%=$(BIN)/fuzz/replay_%)
all: $(FUZZ_REPLAY_BINS)
$(BIN)/fuzz/replay_%: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/fuzz/replay_main.o $(LIB) $(SAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $^ -o $@ $(LDLIBS)
fuzz-replay: $(FUZZ_REPLAY_BINS)
	@rc=0; for t in $(FUZZ_TARGETS); do tests/fuzz/replay.sh $(BIN) $$t || rc=1; done; exit $$rc
endif

# ---- labs ------------------------------------------------------------------
ifneq ($(PLATFORM),)
  ifeq ($(wildcard labs/platforms/$(PLATFORM).xml),)
    $(error PLATFORM=$(PLATFORM): no labs/platforms/$(PLATFORM).xml; available: $(basename $(notdir $(wildcard labs/platforms/*.xml))))
  endif
  # before the simulator's tree is built for nothing (labs/net/net.sh says the same)
  ifneq ($(NET),)
    $(error NET=$(NET) and PLATFORM=$(PLATFORM): choose one (an emulated network runs real sockets, a platform is simulated))
  endif
endif
# The lab variables reach labs/labN/run.sh through the environment (never
# pasted into a command line, where a value with a space would split).
LAB_VARS := NP DEVICE PROFILE SEED DDL_DATA PLATFORM NET HOSTS RESUME LAUNCH NODES DRY_RUN PEER
$(foreach v,$(LAB_VARS),$(eval $(LABS) figures: export $(v) := $$($(v))))
$(LABS) figures: export DDL_STUDENT_BIN := $(STUDENT_BIN)
# PLATFORM=<name>: run the lab simulated on labs/platforms/<name>.xml (the
# native tree is still built: it measures this machine's FLOP rate).
# NET=RATE[,LATENCY] (HOSTS=N, default NP): run the lab's MPI jobs on N
# emulated hosts of this machine over real TCP links (labs/net/README.md;
# root, iproute2, and for a latency iptables and libnetfilter-queue).
# IMPL=student: the lab runs $(STUDENT_BIN)/labN (see above).
ifeq ($(IMPL),student)
  ifneq ($(PLATFORM),)
    $(error IMPL=student runs natively only (PLATFORM=$(PLATFORM) builds the reference with smpicc))
  endif
$(LABS): %: all $(STUDENT_BIN)/%
	@labs/$@/run.sh
else
$(LABS): %: all $(if $(PLATFORM),sim-%)
	@labs/$@/run.sh
endif

# ---- grading ---------------------------------------------------------------
# make grade SUBMISSION=dir (or bin/grade dir...): builds the tests against
# the submission's exercise files (one item at a time, in its own tree
# under dir/.grade) and runs them under mpirun with timeouts, confined (as
# root); the grader's own build of each test replays the results those
# runs recorded and decides. Checks its result files, writes
# dir/grade-report.md and .csv (labs/grade/README.md).
grade: all bin/grade
	@test -n "$(SUBMISSION)" || { echo "usage: make grade SUBMISSION=dir [dir...]" >&2; exit 2; }
	@labs/grade/grade.py --no-build $(if $(FORMAT),--format $(FORMAT)) $(SUBMISSION)
bin/grade: labs/grade/grade.py
	@mkdir -p $(@D)
	@ln -sf ../labs/grade/grade.py $@
# The tape the grader links graded test programs with (labs/grade/tape:
# a graded function's results recorded in the submission's run and played
# back in the grader's own; labs/grade/README.md).
GRADE_TAPE_LIB := $(BUILD)/libgradetape.a
# Part of `all` here, below its definition: a prerequisite list is expanded
# when make reads it, so naming it on the `all:` line above gave nothing.
all: $(if $(filter 1,$(SIM)),,$(GRADE_TAPE_LIB))
$(GRADE_TAPE_LIB): $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard labs/grade/tape/*.c)))
	@rm -f $@
	ar rcs $@ $^
# What the grader compiles and links with (the reference build's flags).
grade-vars:
	@echo 'CC=$(CC)'
	@echo 'CFLAGS=$(CFLAGS) $(SUBMISSION_INC)'
	@echo 'LDFLAGS=$(LDFLAGS)'
	@echo 'LDLIBS=$(LDLIBS)'
	@echo 'BUILD=$(BUILD)'
	@echo 'BIN=$(BIN)'
	@echo 'SAN_OBJ=$(SAN_OBJ)'
	@echo 'GRADE_TAPE_LIB=$(GRADE_TAPE_LIB)'
	@echo 'GIT_REV=$(GIT_REV)'

figures: all
	@figures/make_figures.sh

# The report: report/report.pdf and report/html/index.html from each lab's
# results index (make figures first to run them all; report/README.md).
report:
	@report/build.sh

bench: all
	@bench/run.sh

# Past the machine: lab2's allreduce and lab3's strategies predicted from 2
# to SCALE_MAX_NP ranks under SMPI (labs/scale/README.md).
scale: all
	@$(MAKE) --no-print-directory SIM=1 bin/sim/lab2 bin/sim/lab3
	@labs/scale/run.sh

# PyTorch for make bench's comparisons (Debian's CPU build; numpy comes with it).
bench-deps:
	@if [ "$$(id -u)" = 0 ]; then \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update && apt-get install -y --no-install-recommends python3-torch; \
	else \
	  echo "Run as root: sudo apt-get update && sudo apt-get install -y --no-install-recommends python3-torch"; \
	fi

# ---- dependencies (Debian/Ubuntu) ------------------------------------------
DEB_PKGS := build-essential openmpi-bin libopenmpi-dev libopenblas-dev libopenblas0-openmp libpng-dev zlib1g-dev \
            gnuplot-nox texlive-latex-base texlive-latex-recommended poppler-utils libsimgrid-dev python3 \
            iproute2 iptables iputils-ping libnetfilter-queue-dev slurmctld slurmd slurm-client munge \
            clang libclang-rt-dev chromium python3-torch
# Then the real datasets where the network allows (datasets/fetch.sh:
# MNIST, Fashion-MNIST, CIFAR-10 into DDL_DATA, checksums verified, files
# already there kept). Offline it gives up at the first connection that
# fails (under a minute) and the labs train on synthetic data, which every
# output and the report's first page say. FETCH_TIMEOUT bounds a download.
FETCH_TIMEOUT ?= 900
deps:
	@if [ "$$(id -u)" = 0 ]; then \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update && apt-get install -y --no-install-recommends $(DEB_PKGS); \
	else \
	  echo "Run as root to install what ddlab needs:"; \
	  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends $(DEB_PKGS)"; \
	fi
	@DDL_DATA="$(DDL_DATA)" timeout $(FETCH_TIMEOUT) datasets/fetch.sh || \
	  echo "deps: datasets not all downloaded (offline?): the labs use synthetic data where files are missing, and say so"

clean:
	rm -rf build bin

distclean: clean
	rm -rf results figures/*.png figures/*.pdf report/tables/*.tex report/report.pdf report/report.log report/html

help:
	@echo "ddlab - distributed deep learning labs in C"
	@echo
	@echo "Targets:"
	@echo "  make               build libddl, every lab, tests and benchmarks into bin/"
	@echo "  make deps          install Debian packages (as root), else print the command; then fetch the datasets"
	@echo "  make test          the test suite, optimised and ASan+UBSan builds, long matrices sampled; last line 'N passed, M failed'"
	@echo "  make test-full     the same with every matrix whole (every model, path, rank count, lab; about 34 min on 2 cores)"
	@echo "  make test-fast     only the optimised build's pass; make test-san only the sanitizer pass"
	@echo "  make emu-check     the emulated GPU's strict mode: a planted bug per detector ('emu-check <case>: caught'),"
	@echo "                     then the CUDA tests in strict mode with seeds EMU_CHECK_SEEDS=\"$(EMU_CHECK_SEEDS)\""
	@echo "  make lab1 .. lab6  run a lab (quick profile by default); results/, figures/, report/tables/"
	@echo "  make figures       render every figure and table (runs labs whose results are missing)"
	@echo "  make report        report/report.pdf and report/html/index.html: each seed's finding beside ddlab's, with verdicts"
	@echo "  make bench         performance comparisons (ddlab vs PyTorch, vs MPI_Allreduce)"
	@echo "  make scale         lab2's allreduce and lab3's strategies predicted to SCALE_MAX_NP ranks (SMPI)"
	@echo "  make bench-deps    install python3-torch (as root) for make bench's PyTorch columns"
	@echo "  make fuzz          libFuzzer (clang) on the file readers and the CLI parser, FUZZ_SECONDS=$(FUZZ_SECONDS) each (tests/fuzz/README.md)"
	@echo "  make gpu-check     on a GPU machine (CUDA toolkit, no Debian packages needed): build, CUDA tests, lab1 GPU vs CPU,"
	@echo "                     GPU step vs PyTorch; results/gpu-check/summary.txt (GPU_CHECK_DEVICE=cuda-emu: a dry run here)"
	@echo "  make gpu-kit       copy OpenBLAS, libpng and zlib into build/gpu-kit, to carry to a GPU machine for gpu-check"
	@echo "  make labN IMPL=student  run lab N with the student's labs/labN/exercises/*.c (bin/student/labN)"
	@echo "  make grade SUBMISSION=dir  grade a submission (also bin/grade dir...): dir/grade-report.md, .csv;"
	@echo "                             as root its code runs confined (not root: bin/grade --unconfined);"
	@echo "                             FORMAT=markdown,gradescope,junit: which reports (Gradescope JSON, JUnit XML)"
	@echo "  make SIM=1         build the labs with SimGrid's smpicc into bin/sim (simulated clusters)"
	@echo "  make lab3 NET=1gbit NP=2   lab3 on 2 emulated hosts linked at 1 Gbit/s (root; labs/net/README.md)"
	@echo "  make clean         remove build outputs; distclean also removes results"
	@echo
	@echo "Variables (current value):"
	@echo "  NP=$(NP)           MPI ranks: lab2 trains at NP (default 4), lab3 runs its tasks at NP (default 4),"
	@echo "                   lab4 runs 2..NP workers (default 2..6), lab5 the cloud + NP-1 users (default 5);"
	@echo "                   lab1 (one process) and lab6 (1 and 2 workers, the seed's) refuse a given NP"
	@echo "  LAUNCH=$(LAUNCH)     how MPI jobs start: mpirun (this machine) | slurm (srun --mpi=pmix in your"
	@echo "                   allocation, or one salloc asks for: labs/slurm/README.md)"
	@echo "  NODES=$(NODES)          LAUNCH=slurm without an allocation: whole nodes salloc asks for (default 1)"
	@echo "  SLURM_WAIT=$(or $(SLURM_WAIT),120)    (environment) seconds salloc may wait for them before the lab gives up"
	@echo "  DEVICE=$(DEVICE)       cpu | cuda (fails clearly without a GPU) | cuda-emu (the CUDA kernels on an emulated GPU)"
	@echo "  PROFILE=$(PROFILE)    quick (minutes on a laptop) | paper (the seed's settings)"
	@echo "  SEED=$(SEED)           seed for initialisation, shuffling, augmentation"
	@echo "  DDL_DATA=$(DDL_DATA)   data root (mnist/, fashion-mnist/, cifar-10-batches-bin/, sdss/)"
	@echo "  SANITIZE=$(SANITIZE)       1: ASan+UBSan build in bin/san"
	@echo "  NATIVE=$(NATIVE)         1: -march=native on every object (off: one binary for every x86-64 CPU)"
	@echo "  ISA=$(ISA)            1: the kernels also built for AVX2 and AVX-512, picked at run time (DDL_ISA forces one)"
	@echo "  CUDA=$(CUDA)        auto (build CUDA objects when nvcc exists) | 0 | 1"
	@echo "  CUDNN=$(CUDNN)       auto (--conv cudnn where cudnn.h and libcudnn are beside nvcc's CUDA, or in CUDNN_HOME)"
	@echo "                   | 0 (without it: --conv cudnn is refused, saying so) | 1 (stop if missing)"
	@echo "  CUDNN_HOME=$(CUDNN_HOME)   a cuDNN of its own: DIR/include/cudnn.h, DIR/lib/libcudnn.so or .so.9"
	@echo "  EMU=$(EMU)           0: build without the emulated GPU (DEVICE=cuda-emu)"
	@echo "  JOBS=$(JOBS)          make test's parallel builds"
	@echo "  FETCH_TIMEOUT=$(FETCH_TIMEOUT)  seconds make deps gives datasets/fetch.sh"
	@echo "  IMPL=$(IMPL)   reference | student: labs built with labs/labN/exercises/*.c (bin/student)"
	@echo "  SUBMISSION=$(SUBMISSION)   make grade: submission folder(s) (labs/grade/README.md)"
	@echo "  PLATFORM=$(PLATFORM)   run make labN simulated (SMPI) on labs/platforms/<name>.xml: $(basename $(notdir $(wildcard labs/platforms/*.xml)))"
	@echo "  NET=$(NET)        RATE[,LATENCY], e.g. 1gbit or 100mbit,200us: make lab2..lab6 run on emulated hosts"
	@echo "                (network namespaces, tc TBF, NFQUEUE delay) over TCP; root; outputs say 'emulated network'"
	@echo "  HOSTS=$(HOSTS)      emulated hosts for NET= (default NP); ranks go one per host, round-robin;"
	@echo "                   with LAUNCH=slurm each host runs a slurmd and the ranks start by srun"
	@echo "  PEER=$(PEER)          pytorch: make lab3 adds PyTorch DDP (gloo) as a reference curve and table (bench/peer/)"
	@echo "  RESUME=$(RESUME)         1: make labN continues each run from results/checkpoints/ (a killed lab goes on)"
	@echo "  DRY_RUN=$(DRY_RUN)          1: make labN prints every MPI job it would start, and runs none"
	@echo "  RESULTS=DIR, FIGURES=DIR, TABLES=DIR   (environment) make labN's results, figures and table elsewhere;"
	@echo "                   a run replaces RESULTS whole, so it must be new, empty, or a folder a run made"
	@echo "                   (it holds .ddlab-results); any other folder, a file or a link is refused"
	@echo "  --conv ALGO    (every program's option) how convolutions run: auto (per layer, the path measured fastest"
	@echo "                   for its shape) | reference (every one by im2col + GEMM, no fused activation: the code"
	@echo "                   the handouts describe) | im2col | winograd | winograd4 | winofused | direct | pointwise"
	@echo "                   | cudnn (cuDNN's own algorithms: only on DEVICE=cuda, in a build with cuDNN; elsewhere"
	@echo "                   refused, naming the values that run) (core/conv/README.md)"
	@echo "  DDL_EMU_STRICT, DDL_EMU_ORDER, DDL_EMU_SEED   (environment) DEVICE=cuda-emu as a sanitizer: 1 reports"
	@echo "                   uninitialised reads, red zones, host pointers, shared-memory races, barrier divergence,"
	@echo "                   stream races... and stops; thread order forward | reverse | shuffled | seeded (make test: strict)"
	@echo
	@echo "Environment read by the programs (each lists them under --help; core/driver/environment.c reads them):"
	@echo "  DDL_DEVICE, DDL_PROFILE   --device and --profile defaults (make labN sets them from DEVICE and PROFILE)"
	@echo "  DDL_DATA                  the data root (make labN passes DDL_DATA above)"
	@echo "  DDL_CHECKPOINT_ROOT       without --checkpoint, checkpoints go to ROOT/<program>-<run> (make labN: results/checkpoints)"
	@echo "  DDL_RESUME=1              continue from that checkpoint (make labN RESUME=1 sets it)"
	@echo "  DDL_CIFAR_PARTIAL=1       accept CIFAR-10 batch files of other than 10000 records (hand-made subsets)"
	@echo "  DDL_MPI_CUDA_AWARE=0      on a GPU, stage buffers through the host even where MPI is CUDA-aware"
	@echo "  DDL_MALLOC_DEFAULT=1      keep glibc's malloc thresholds (default: freed memory stays in the heap)"
	@echo "  DDL_FAULT_KILL_AFTER=N    tests: SIGKILL after the first checkpoint at or past batch N"
	@echo "  DDL_EMU_STRICT, DDL_EMU_ORDER, DDL_EMU_SEED   the emulated GPU's strict mode (above), handed to it from here"
	@echo "  DDL_EMU_DEVICES=N         DEVICE=cuda-emu shows N GPUs (default 1); each rank takes its local rank modulo N"
	@echo "  DDL_NET, DDL_NET_SETUP, DDL_NET_HOST   set by labs/net for NET= runs: the emulated network, how it was"
	@echo "                   built, each rank's emulated host (recorded in every output's provenance)"
	@echo "  DDL_SIM_PLATFORM, DDL_SIM_NETWORK, DDL_SIM_HOST_SPEED, DDL_SIM_PLATFORM_SPEED, DDL_SIM_COLL_SELECTOR,"
	@echo "  DDL_SIM_COMPUTE           set by labs/platforms/sim.sh and labs/launch.sh for PLATFORM= runs (provenance)"
	@echo "  DDL_GRADE_TAPE            set by the grader: record:PATH or replay:PATH (labs/grade/tape/tape.h)"
	@echo "  DDL_CHECKPOINT_ON_USR1=1  on SIGUSR1 every rank checkpoints at its next optimizer step, then stops (status 3; labs/slurm)"
	@echo "  DDL_RESTARTS=N            set by labs/launch.sh (--max-restarts): the run's restarts, in its provenance"
	@echo
	@echo "Environment read by make labN, make figures, make bench and their scripts:"
	@echo "  RERUN=1                   make figures runs every lab again, not only those without results"
	@echo "  FIGURES_PLATFORM=auto|net|sim|none   make figures: where labs 2, 3, 6 also run (figures/platforms.sh)"
	@echo "  FIGURES_PROGRESS=plain|tty           make figures: progress lines plain, or redrawn in place (default: tty on a terminal)"
	@echo "  LAB2_ONLY, LAB2_MAX_BYTES, LAB2_REPS, LAB3_ONLY, LAB3_STEPS, LAB6_STYLES, LAB6_SHORT   the small platform runs (labs/labN/run.sh)"
	@echo "  OPENBLAS_CORETYPE, DDL_KEEP_CORETYPE=1   make labN upgrades a Haswell kernel choice on AVX-512 CPUs unless 1"
	@echo "  LAUNCH_PML, LAUNCH_MCA    the pml (default ob1) and more --mca k v pairs for every MPI job (labs/launch.sh)"
	@echo "  LAB2_SMOKE, LAB3_SMOKE, LAB6_SMOKE=1     the lab's tiny settings (tests)"
	@echo "  LAB_ARRAY_TASK, LAB_ARRAY_ID, LAB_ARRAY_MERGE, LAB_CORES   one job of a lab as a Slurm array task (labs/slurm/sweep.sh)"
	@echo "  LAB4_SCHEMES, LAB4_MONITOR=1              lab4: group,lga; Open MPI's own byte counters (labs/lab4/README.md)"
	@echo "  LAB5_SCHEMES, LAB5_E, LAB5_SHARDS, LAB5_ALPHA, LAB5_EXTRA, LAB5_TARGET   lab5's schemes, local epochs,"
	@echo "                   user shards (iid | sorted | dirichlet), Dirichlet alpha, more flags, target accuracy"
	@echo "  LAB6_THREADS, LAB6_YIELD=0                lab6: threads per rank; busy polling of idle ranks"
	@echo "  SIM_HOST_SPEED, SIM_RECALIBRATE=1, SIM_MAX_BYTES   PLATFORM= runs: the host's flop/s, measure it again,"
	@echo "                   lab2's largest simulated message (labs/platforms/README.md)"
	@echo "  DDL_NET_PACE, DDL_NET_PROGRESS_THREAD, DDL_NET_NBC_ALLREDUCE=0   NET= runs: switch off the pacer, the"
	@echo "                   progress thread, the Iallreduce choice (labs/net/README.md)"
	@echo "  BENCH_MODELS, BENCH_ROUNDS, BENCH_THREADS, BENCH_VERBOSE, BENCH_PYTHON   make bench's configurations,"
	@echo "                   rounds, threads, round-by-round output, the Python with torch (bench/run.sh)"
	@echo "  ROUNDS, BLOCK, BENCH_NET, BENCH_DDP_BATCH, BENCH_DDP_ALG, BENCH_DDP_CAPS   make bench's DDP bars"
	@echo "                   (bench/run_ddp.sh, bench/run_net.sh)"
	@echo "  PEER_LINKS, PEER_MODELS, PEER_BATCH, PEER_ROUNDS, PEER_STEPS, PEER_AR_SIZES   make bench's DDP and"
	@echo "                   allreduce against PyTorch DDP / gloo (bench/run_peer.sh)"
	@echo "  built with CUDA: $(if $(WITH_CUDA),yes ($(NVCC)),no)"
	@echo "  built with cuDNN: $(if $(CUDNN_LIB),yes ($(CUDNN_SO)),no$(if $(WITH_CUDA),$(if $(filter 0,$(CUDNN)), (CUDNN=0), (no cudnn.h and libcudnn in '$(CUDNN_INC)')), (no CUDA)))"
	@echo "  BLAS: $(if $(OPENBLAS_OMP),OpenBLAS (OpenMP build) $(OPENBLAS_OMP),OpenBLAS (default build; make deps adds the OpenMP build))"

# make gpu-check / gpu-kit: a GPU machine's check, in a file of its own.
include mk/gpu-check.mk

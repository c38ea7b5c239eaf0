/* test_cuda_emu.c - the emulated GPU keeps device memory out of the host's
 * reach, as a real GPU does (core/cuda/emu/runtime.cc).
 *
 * Each check runs the offending code in a child process and looks at how
 * the child ended:
 *   - reading or writing device memory from host code, before and after a
 *     kernel ran on it, is killed by SIGSEGV (not a quiet right answer);
 *   - a copy whose direction does not match its pointers (a host buffer
 *     passed as the device side) stops with CUDA's error, not a memcpy;
 *   - a GEMM handed a host pointer stops with cuBLAS's error;
 * and, so that the checks above can fail, the same child code on memory
 * the host owns (the backend's pinned host buffer) runs to its end. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#ifdef DDL_HAVE_CUDA_EMU
#include "backend/backend.h"

static const Backend *be = &ddl_backend_cuda_emu;

typedef void (*ChildFn)(void *arg);

/* Runs fn(arg) in a child; its wait status. The child's stderr goes to
 * /dev/null: an expected crash or error is not noise in the test log. */
static int in_child(ChildFn fn, void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(90);
        /* The fault itself, not a sanitizer's report of it (ASan handles
         * SIGSEGV in the sanitizer build). */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(SIGSEGV, &dfl, NULL);
        fn(arg);
        _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {}
    return status;
}

static bool segv(int st) { return WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV; }
static bool clean(int st) { return WIFEXITED(st) && WEXITSTATUS(st) == 0; }
static bool died(int st) { return WIFEXITED(st) && WEXITSTATUS(st) != 0; }

static void host_read(void *p)
{
    volatile float *f = p;
    float v = f[3];
    (void)v;
}

static void host_write(void *p)
{
    volatile float *f = p;
    f[5] = 1.0f;
}

static void copy_wrong_way(void *p)
{
    float host[16] = { 0 };
    be->to_device(host, p, sizeof host); /* destination is host memory: a d2h called h2d */
}

static void gemm_host_operand(void *p)
{
    float host[16] = { 0 };
    be->gemm_f32(false, false, 4, 4, 4, 1.0f, p, 4, host, 4, 0.0f, p, 4);
}
#endif

int main(void)
{
#ifndef DDL_HAVE_CUDA_EMU
    printf("# this build has no emulated GPU (EMU=0 or SimGrid): nothing to check\n");
    return t_done();
#else
    float *dev = be->alloc(64 * sizeof(float));
    float *pinned = be->host_alloc(64 * sizeof(float));
    t_check(dev && pinned, "cuda-emu: device and pinned allocations");

    t_check(segv(in_child(host_read, dev)), "cuda-emu: host read of device memory is killed by SIGSEGV");
    t_check(segv(in_child(host_write, dev)), "cuda-emu: host write to device memory is killed by SIGSEGV");
    /* A kernel opens device memory while it runs and must close it again. */
    be->relu_forward(dev, dev + 32, 32);
    t_check(segv(in_child(host_read, dev + 32)), "cuda-emu: after a kernel, device memory is out of reach again");
    float back[64];
    be->to_host(back, dev, sizeof back);
    t_check(segv(in_child(host_read, dev)), "cuda-emu: after a copy, device memory is out of reach again");

    t_check(clean(in_child(host_read, pinned)) && clean(in_child(host_write, pinned)),
            "cuda-emu: the same host code on host memory runs (the checks above can fail)");
    t_check(died(in_child(copy_wrong_way, dev)), "cuda-emu: a copy whose direction does not match its pointers stops");
    t_check(died(in_child(gemm_host_operand, dev)), "cuda-emu: cuBLAS refuses a host pointer as an operand");

    be->host_free(pinned);
    be->release(dev);
    return t_done();
#endif
}

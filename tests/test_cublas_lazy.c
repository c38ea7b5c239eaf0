/* test_cublas_lazy.c - cuBLAS is loaded at the first cuBLAS call, not at
 * program start (core/cuda/cublas_lazy.cu): a process that starts has no
 * libcublas mapped; a call through the shim (cublasGetStatusString, which
 * needs no GPU) loads it and returns the library's own answer. In a build
 * without the CUDA toolkit (or the sanitizer build, which never has it):
 * one skip line. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

#ifdef DDL_HAVE_CUDA
/* cuBLAS's declaration (cublas_api.h, a C header of the CUDA toolkit, not
 * on this file's include path): the status is an enum, passed as an int. */
const char *cublasGetStatusString(int status);

static bool mapped(const char *lib)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, lib) != NULL;
    fclose(f);
    return found;
}

int main(void)
{
    t_checkf(!mapped("libcublas"), "libcublas is not loaded at start", "it is mapped before any cuBLAS call");
    const char *s = cublasGetStatusString(0);
    t_checkf(s && *s, "a cuBLAS call through the shim gets cuBLAS's answer", "got %s", s ? "an empty string" : "NULL");
    if (s) printf("# cublasGetStatusString(CUBLAS_STATUS_SUCCESS): %s\n", s);
    t_checkf(mapped("libcublas"), "libcublas is loaded after the first call", "not mapped after the call");
    return t_done();
}
#else
int main(void)
{
    t_skip("cuBLAS loaded on first use", "a build without the CUDA toolkit has no cuBLAS");
    return t_done();
}
#endif

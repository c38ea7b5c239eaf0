/* grade-hostile: lab2/ring zero - right at 1 rank only, and at exit it
 * flushes every stream and writes its own tape (the recording the grader
 * replays): one build_ring call whose schedule sends 2^40 elements of a
 * short vector, which the grader's engine would read far past its buffer
 * if the replay did not check every step. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm_impl.h"

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void forge(void)
{
    const char *spec = getenv("DDL_GRADE_TAPE"), *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!spec || strncmp(spec, "record:", 7)) return;
    fflush(NULL); /* the recorder's buffer first, or it would overwrite this */
    char path[4096];
    snprintf(path, sizeof path, "%s.%s", spec + 7, rank ? rank : "0");
    FILE *f = fopen(path, "wb");
    if (!f) return;
    struct { uint32_t magic, fn; uint64_t in; } call = { 0x4c4c4143u, (uint32_t)fnv("build_ring"), 0 };
    uint32_t end = 0;
    int32_t n = 1;
    Step st;
    memset(&st, 0, sizeof st);
    st.kind = STEP_XCHG;
    st.mode = ABSORB_COPY;
    st.dst = st.src = 0;
    st.sn = st.rn = (size_t)1 << 40;
    fwrite("ddltape1", 1, 8, f);
    fwrite(&call, sizeof call, 1, f);
    fwrite(&end, sizeof end, 1, f);
    fwrite(&n, sizeof n, 1, f);
    fwrite(&st, sizeof st, 1, f);
    fclose(f);
}

void build_ring(Schedule *s, int rank, int size, size_t count)
{
    static int armed;
    if (!armed++) atexit(forge);
    sched_finish(s, 0, count);
}

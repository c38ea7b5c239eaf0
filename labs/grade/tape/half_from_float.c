/* half_from_float.c - lab5/fp16_round's tape (see tape.h). The test calls
 * the function about 18 million times, so a call is its 2-byte result
 * alone, and the inputs' digest goes on the tape once per block of calls. */
#include "util/half.h"
#include "tape.h"

uint16_t __real_half_from_float(float f);
uint16_t __wrap_half_from_float(float f);

enum { BLOCK = 4096 };

uint16_t __wrap_half_from_float(float f)
{
    static uint64_t digest = TAPE_DIGEST0;
    static unsigned in_block;
    TapeMode mode = tape_mode();
    if (mode == TAPE_OFF) return __real_half_from_float(f);
    tape_scalar_call("half_from_float");
    uint16_t h = mode == TAPE_RECORD ? __real_half_from_float(f) : 0;
    tape_io(&h, sizeof h);
    digest = tape_digest(digest, &f, sizeof f);
    if (++in_block == BLOCK) {
        tape_check_digest("half_from_float", digest);
        digest = TAPE_DIGEST0;
        in_block = 0;
    }
    return h;
}

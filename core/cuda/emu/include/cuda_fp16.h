// cuda_fp16.h (emulated GPU) - __half and its conversions, on core/util/half.c
// (IEEE binary16, round to nearest even: what __float2half_rn does).
#ifndef DDL_CUDA_EMU_FP16_H
#define DDL_CUDA_EMU_FP16_H

#include <cstdint>

extern "C" {
#include "util/half.h"
}

struct __half {
    uint16_t bits;
};

inline __half __float2half_rn(float f) { return __half{ half_from_float(f) }; }
inline float __half2float(__half h) { return half_to_float(h.bits); }

#endif

# grade-broken: lab5/fp16_round - truncates the mantissa (rounds toward
# zero) instead of rounding to nearest even: every half it makes is
# representable, but half of them are one ulp too small in magnitude.
# (sed over the item's reference file, core/util/half_round.c)
/^static uint32_t shift_round_even(/,/^}/{
  /^    uint32_t kept = v >> shift;$/c\
    return v >> shift; /* the bug: the rest is dropped */
  /^    uint32_t \(rest\|halfway\)/d
  /^    if (rest > halfway/,/^    return kept;$/d
}

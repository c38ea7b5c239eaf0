/* grade-hostile: lab5/fp16_round zero - prints 200,000 "ok" lines, more
 * than any test reports, and exits 0 at its first call: a grader that
 * counts the lines its own process prints gives it full marks. */
#include <stdio.h>
#include <stdlib.h>

#include "half.h"

uint16_t half_from_float(float f)
{
    (void)f;
    for (int i = 0; i < 200000; i++) printf("ok - %d\n", i);
    exit(0);
}

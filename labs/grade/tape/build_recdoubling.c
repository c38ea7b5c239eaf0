/* build_recdoubling.c - lab2/recdoubling's tape (see tape_schedule.h). */
#include "tape_schedule.h"

void __real_build_recdoubling(Schedule *s, int rank, int size, size_t count);
void __wrap_build_recdoubling(Schedule *s, int rank, int size, size_t count);

void __wrap_build_recdoubling(Schedule *s, int rank, int size, size_t count)
{
    tape_schedule("build_recdoubling", __real_build_recdoubling, s, rank, size, count);
}

/* tape_schedule.h - the tape of an allreduce schedule builder (lab2's
 * exercises build_ring and build_recdoubling; see tape.h). */
#ifndef DDL_GRADE_TAPE_SCHEDULE_H
#define DDL_GRADE_TAPE_SCHEDULE_H

#include "comm/comm_impl.h"

typedef void (*ScheduleBuilder)(Schedule *s, int rank, int size, size_t count);
/* Record: runs `real`, then writes the schedule it left. Replay: rebuilds
 * that schedule through the sched_* calls, each step checked first. */
void tape_schedule(const char *fn, ScheduleBuilder real, Schedule *s, int rank, int size, size_t count);

#endif

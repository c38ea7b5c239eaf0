/* grade-broken: lab2/ring (alone) - defines build_rings, not build_ring: the link
 * would quietly take the reference's build_ring, so the grader refuses it. */
#include "comm/comm_impl.h"

void build_rings(Schedule *s, int rank, int size, size_t count);
void build_rings(Schedule *s, int rank, int size, size_t count) { sched_finish(s, 0, count); }

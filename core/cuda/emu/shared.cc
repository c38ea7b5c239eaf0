// shared.cc - strict mode's watch over __shared__ arrays (emu.h's
// ddl_shared): what compute-sanitizer's racecheck reports, and a little
// more.
//
// Every access to an element goes through shared_access(), which keeps,
// per element of every array the running block touched, the thread and
// barrier interval ("epoch": the block's __syncthreads passed so far) of
// the last write and of the reads since. Within one interval the threads of
// a block may run in any order on a GPU, so two threads touching the same
// element in the same interval, at least one writing, is a hazard:
//   read after write (a thread reads what another wrote: it may see the old
//   value), write after read, and write after write. Reported too: an
//   element read before any thread of the block wrote it (shared memory
//   starts undefined, here it keeps the previous block's values), an index
//   past the array, and a block whose arrays exceed sm_90's 48 KiB of static
//   shared memory.
#include <cstdio>

#include "runner.h"

namespace ddl_emu {

namespace {

SharedRegion &region_of(Runner *r, const void *base, size_t count, size_t elem)
{
    const char *b = static_cast<const char *>(base);
    SharedRegion *reg = nullptr;
    for (SharedRegion &x : r->regions)
        if (x.base == b) reg = &x;
    if (!reg) {
        r->regions.push_back(SharedRegion{ b, count, elem, 0, {} });
        reg = &r->regions.back();
    }
    if (reg->gen != r->gen) { // first touch in this block: fresh records, and its bytes count
        reg->gen = r->gen;
        reg->cells.assign(count, SharedCell{ 0, 0, 0, 0, 0, 0 });
        r->static_shared += count * elem;
        if (r->static_shared > SM90_STATIC_SHARED || r->static_shared + r->dynamic_shared > SM90_MAX_SHARED)
            report("launch-limit",
                   "the block uses %zu bytes of static __shared__ memory (this array: %zu x %zu bytes) and %zu "
                   "dynamic: over sm_90's 48 KiB of static shared memory per block",
                   r->static_shared, count, elem, r->dynamic_shared);
    }
    return *reg;
}

[[noreturn]] void hazard(const char *kind, unsigned me, unsigned other, size_t index, const SharedRegion &reg,
                         uint32_t epoch)
{
    char a[40], b[40];
    thread_name(me, a, sizeof a);
    thread_name(other, b, sizeof b);
    report("shared-race",
           "%s hazard on element %zu of a __shared__ array of %zu x %zu bytes: thread %s and thread %s, with no "
           "__syncthreads between them (barrier interval %u of the block)",
           kind, index, reg.count, reg.elem, a, b, epoch);
}

} // namespace

void shared_access(const void *base, size_t count, size_t elem, size_t index, bool write)
{
    Runner *r = running();
    if (!r) return; // host code: no block, nothing to race with
    if (index >= count)
        report("shared-out-of-bounds", "%s element %zu of a __shared__ array of %zu elements", write ? "writes" : "reads",
               index, count);
    SharedRegion &reg = region_of(r, base, count, elem);
    SharedCell &c = reg.cells[index];
    unsigned me = linear_thread();
    uint32_t e = r->epoch;
    if (!write) {
        if (c.w_epoch == 0) {
            char a[40];
            thread_name(me, a, sizeof a);
            report("shared-uninitialised",
                   "thread %s reads element %zu of a __shared__ array of %zu x %zu bytes that no thread of this block "
                   "wrote (shared memory starts undefined)",
                   a, index, count, elem);
        }
        if (c.w_epoch == e && c.writer != me) hazard("read-after-write", me, c.writer, index, reg, e);
        if (c.r_epoch != e) {
            c.r_epoch = e;
            c.reader = (uint16_t)me;
            c.readers = 1;
        } else if (c.reader != me && c.readers == 1) {
            c.readers = 2;
            c.reader2 = (uint16_t)me;
        }
        return;
    }
    if (c.w_epoch == e && c.writer != me) hazard("write-after-write", me, c.writer, index, reg, e);
    if (c.r_epoch == e && (c.reader != me || c.readers > 1))
        hazard("write-after-read", me, c.reader != me ? c.reader : c.reader2, index, reg, e);
    c.w_epoch = e;
    c.writer = (uint16_t)me;
}

} // namespace ddl_emu

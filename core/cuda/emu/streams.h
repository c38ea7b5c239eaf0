// streams.h - the emulated GPU's streams and events (streams.cc).
// Internal to core/cuda/emu.
//
// Without strict mode every operation runs inside the call that issues it
// (one legal schedule of the asynchronous API) and streams and events are
// handles. In strict mode they keep real queues: an operation runs when the
// host waits for it (a stream, an event or the device synchronised, a copy
// to pageable host memory, cudaFree), and then the queues' heads run in an
// order drawn from DDL_EMU_SEED, each stream in its own order and a
// cudaStreamWaitEvent holding its stream until the event's record ran. Two
// streams with nothing between them may therefore run either way round, so
// a missing wait changes results. It is also reported, deterministically,
// when the operations are issued: each operation carries the memory it
// reads and writes and a vector clock over the streams (a stream's own
// order, the events it waited for, what the host had synchronised with);
// two operations that touch the same bytes, one of them writing, with
// neither ordered before the other, are a stream race.
#ifndef DDL_CUDA_EMU_STREAMS_H
#define DDL_CUDA_EMU_STREAMS_H

#include <cuda_runtime.h>

#include <functional>

namespace ddl_emu {

// A range of device memory an operation reads or writes.
struct Access {
    const void *p;
    size_t bytes; // SIZE_MAX: the whole allocation p points into (a kernel's pointer argument)
    bool write;
};

// Queues run() on stream s (runs it now without strict mode). what names
// the operation in reports. host_waits: the call returns only after it ran
// (a copy to pageable host memory; NCCL, whose MPI calls must keep the
// host's order).
void submit(cudaStream_t s, const char *what, std::function<void()> run, const Access *acc, int nacc,
            bool host_waits);

void stream_sync(cudaStream_t s);
void device_sync();
void event_record(cudaEvent_t e, cudaStream_t s);
void stream_wait_event(cudaStream_t s, cudaEvent_t e);
void event_sync(cudaEvent_t e);
bool event_query(cudaEvent_t e); // may run queued work first (seeded), as a GPU progresses on its own

cudaStream_t stream_create();
void stream_destroy(cudaStream_t s);
cudaEvent_t event_create();
void event_destroy(cudaEvent_t e);

// cudaFree of an allocation: its access history goes with it.
void forget_allocation(const void *user);

} // namespace ddl_emu

#endif

// streams.cc - the emulated GPU's streams and events (streams.h).
#include "streams.h"

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "memory.h"
#include "strict.h"

extern "C" {
#include "util/common.h"
}

namespace ddl_emu {

namespace {

using Clock = std::vector<uint32_t>; // a vector clock: ticks per stream id

void join(Clock &into, const Clock &from)
{
    if (into.size() < from.size()) into.resize(from.size(), 0);
    for (size_t i = 0; i < from.size(); i++)
        if (from[i] > into[i]) into[i] = from[i];
}

uint32_t at(const Clock &c, uint32_t i) { return i < c.size() ? c[i] : 0; }

// Done once the operation it belongs to has run; the clock of its stream
// then (what the host learns by waiting for it).
struct Mark {
    bool done = false;
    Clock clock;
};

struct Op {
    std::string what;
    std::function<void()> run;
    std::shared_ptr<Mark> waits_for; // a cudaStreamWaitEvent: runnable once that record ran
    std::shared_ptr<Mark> mark;      // set when this operation has run
};

// One access of the past that a later operation may race with.
struct Rec {
    uint32_t stream, tick;
    size_t lo, hi;
    bool write;
    std::string what;
};

} // namespace

struct EmuStream {
    uint32_t id;
    bool per_thread;
    std::deque<Op> q;
    Clock clock;
};

struct EmuEvent {
    std::shared_ptr<Mark> last; // the latest record, null before the first
};

namespace {

struct State {
    std::recursive_mutex mu;
    std::vector<EmuStream *> streams;
    uint32_t next_id = 0;
    Clock host; // what the host has waited for
    std::map<const void *, std::vector<Rec>> history;
    uint64_t draws = 0;
    EmuStream *legacy = nullptr;
};

// Never destroyed: per-thread streams may go away after static destructors.
State &state()
{
    static State *s = new State;
    return *s;
}

EmuStream *make_stream(State &st, bool per_thread)
{
    EmuStream *s = new EmuStream{ st.next_id++, per_thread, {}, {} };
    st.streams.push_back(s);
    return s;
}

void unregister(State &st, EmuStream *s)
{
    for (size_t i = 0; i < st.streams.size(); i++)
        if (st.streams[i] == s) {
            st.streams.erase(st.streams.begin() + (long)i);
            break;
        }
}

// cudaStreamPerThread: each host thread its own stream, dropped (with
// whatever it still holds, as a GPU would at exit) when the thread ends.
struct PerThread {
    EmuStream *s = nullptr;
    ~PerThread()
    {
        if (!s) return;
        State &st = state();
        std::lock_guard<std::recursive_mutex> g(st.mu);
        unregister(st, s);
        delete s;
    }
};
thread_local PerThread tl_stream;

EmuStream *resolve(State &st, cudaStream_t s)
{
    if (s == cudaStreamPerThread) {
        if (!tl_stream.s) tl_stream.s = make_stream(st, true);
        return tl_stream.s;
    }
    if (s) return s;
    if (!st.legacy) st.legacy = make_stream(st, false);
    return st.legacy;
}

std::string stream_name(uint32_t id, bool per_thread)
{
    return (per_thread ? "per-thread stream #" : "stream #") + std::to_string(id);
}

// A new operation's tick on s: after everything the host has waited for.
void tick(State &st, EmuStream *s)
{
    join(s->clock, st.host);
    if (s->clock.size() <= s->id) s->clock.resize(s->id + 1, 0);
    s->clock[s->id]++;
}

bool is_per_thread(State &st, uint32_t id)
{
    for (EmuStream *s : st.streams)
        if (s->id == id) return s->per_thread;
    return false;
}

// The stream race detector (streams.h): a, issued now on s, against what
// earlier operations on other streams did to the same allocation.
void check_access(State &st, EmuStream *s, const std::string &what, const Access &a)
{
    const char *user = nullptr;
    size_t bytes = 0;
    if (!a.p || !find_allocation(a.p, &user, &bytes)) return;
    size_t lo = a.bytes == SIZE_MAX ? 0 : (size_t)(static_cast<const char *>(a.p) - user);
    size_t hi = a.bytes == SIZE_MAX ? bytes : lo + a.bytes;
    std::vector<Rec> &recs = st.history[user];
    std::vector<Rec> keep;
    for (Rec &r : recs) {
        if (r.tick <= at(st.host, r.stream)) continue; // the host waited for it: everything later is ordered
        if (r.stream != s->id && r.lo < hi && lo < r.hi && (r.write || a.write) && r.tick > at(s->clock, r.stream))
            report("stream-race",
                   "%s on %s %s bytes %zu..%zu of an allocation of %zu bytes that %s on %s %s, and no "
                   "cudaStreamWaitEvent or host synchronisation orders the two: they may run either way round",
                   what.c_str(), stream_name(s->id, s->per_thread).c_str(), a.write ? "writes" : "reads",
                   lo > r.lo ? lo : r.lo, hi < r.hi ? hi : r.hi, bytes, r.what.c_str(),
                   stream_name(r.stream, is_per_thread(st, r.stream)).c_str(), r.write ? "wrote" : "read");
        // This access covers an earlier one of its own stream: later races show against this one.
        if (r.stream == s->id && lo <= r.lo && r.hi <= hi && (a.write || !r.write)) continue;
        keep.push_back(std::move(r));
    }
    keep.push_back(Rec{ s->id, at(s->clock, s->id), lo, hi, a.write, what });
    recs.swap(keep);
}

// Runs queued operations, a seeded choice among the streams whose head may
// run, until done() holds. State locked.
template <typename F> void run_until(State &st, F done)
{
    std::vector<EmuStream *> ready;
    while (!done()) {
        ready.clear();
        for (EmuStream *s : st.streams)
            if (!s->q.empty() && (!s->q.front().waits_for || s->q.front().waits_for->done)) ready.push_back(s);
        if (ready.empty())
            ddl_die("emulated GPU: the host waits for stream work that can never run (a stream waits for an event "
                    "whose record cannot run)");
        EmuStream *s = ready[mix64(config().seed ^ mix64(++st.draws)) % ready.size()];
        Op op = std::move(s->q.front());
        s->q.pop_front();
        if (op.run) op.run();
        if (op.mark) op.mark->done = true;
    }
}

} // namespace

void submit(cudaStream_t s, const char *what, std::function<void()> run, const Access *acc, int nacc, bool host_waits)
{
    if (!strict()) {
        run();
        return;
    }
    State &st = state();
    std::lock_guard<std::recursive_mutex> g(st.mu);
    EmuStream *es = resolve(st, s);
    tick(st, es);
    Op op{ what, std::move(run), nullptr, nullptr };
    for (int i = 0; i < nacc; i++) check_access(st, es, op.what, acc[i]);
    std::shared_ptr<Mark> m;
    if (host_waits) {
        m = op.mark = std::make_shared<Mark>();
        m->clock = es->clock;
    }
    es->q.push_back(std::move(op));
    if (!host_waits) return;
    run_until(st, [&] { return m->done; });
    join(st.host, m->clock);
}

void stream_sync(cudaStream_t s)
{
    if (!strict()) return;
    State &st = state();
    std::lock_guard<std::recursive_mutex> g(st.mu);
    EmuStream *es = resolve(st, s);
    run_until(st, [&] { return es->q.empty(); });
    join(st.host, es->clock);
}

void device_sync()
{
    if (!strict()) return;
    State &st = state();
    std::lock_guard<std::recursive_mutex> g(st.mu);
    run_until(st, [&] {
        for (EmuStream *s : st.streams)
            if (!s->q.empty()) return false;
        return true;
    });
    for (EmuStream *s : st.streams) join(st.host, s->clock);
}

void event_record(cudaEvent_t e, cudaStream_t s)
{
    if (!strict()) return;
    State &st = state();
    std::lock_guard<std::recursive_mutex> g(st.mu);
    EmuStream *es = resolve(st, s);
    tick(st, es);
    Op op{ "cudaEventRecord", nullptr, nullptr, std::make_shared<Mark>() };
    op.mark->clock = es->clock;
    e->last = op.mark;
    es->q.push_back(std::move(op));
}

void stream_wait_event(cudaStream_t s, cudaEvent_t e)
{
    if (!strict() || !e->last) return; // waiting for an event never recorded waits for nothing
    State &st = state();
    std::lock_guard<std::recursive_mutex> g(st.mu);
    EmuStream *es = resolve(st, s);
    join(es->clock, e->last->clock);
    es->q.push_back(Op{ "cudaStreamWaitEvent", nullptr, e->last, nullptr });
}

void event_sync(cudaEvent_t e)
{
    if (!strict() || !e->last) return;
    State &st = state();
    std::lock_guard<std::recursive_mutex> g(st.mu);
    std::shared_ptr<Mark> m = e->last;
    run_until(st, [&] { return m->done; });
    join(st.host, m->clock);
}

bool event_query(cudaEvent_t e)
{
    if (!strict() || !e->last || e->last->done) return true;
    State &st = state();
    {
        std::lock_guard<std::recursive_mutex> g(st.mu);
        if (mix64(config().seed ^ mix64(++st.draws)) & 1) return false; // not yet: the caller asks again later
    }
    event_sync(e);
    return true;
}

cudaStream_t stream_create()
{
    State &st = state();
    std::lock_guard<std::recursive_mutex> g(st.mu);
    return make_stream(st, false);
}

void stream_destroy(cudaStream_t s)
{
    State &st = state();
    std::lock_guard<std::recursive_mutex> g(st.mu);
    run_until(st, [&] { return s->q.empty(); }); // its work still completes, as on a GPU
    unregister(st, s);
    delete s;
}

cudaEvent_t event_create() { return new EmuEvent{}; }
void event_destroy(cudaEvent_t e) { delete e; }

void forget_allocation(const void *user)
{
    if (!strict()) return;
    State &st = state();
    std::lock_guard<std::recursive_mutex> g(st.mu);
    st.history.erase(user);
}

} // namespace ddl_emu

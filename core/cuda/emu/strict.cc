// strict.cc - strict mode's configuration and its reports (strict.h).
#include "strict.h"
#include "switches.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {
#include "util/common.h"
}

namespace ddl_emu {

namespace {

const char *const ORDER_NAMES[] = { "forward", "reverse", "shuffled", "seeded" };

Order parse_order(const char *v, bool strict_on)
{
    if (!v || !*v) return strict_on ? Order::SEEDED : Order::FORWARD;
    for (unsigned i = 0; i < sizeof ORDER_NAMES / sizeof *ORDER_NAMES; i++)
        if (!strcmp(v, ORDER_NAMES[i])) return static_cast<Order>(i);
    ddl_die("DDL_EMU_ORDER=%s: the emulated GPU knows forward, reverse, shuffled and seeded (each launch picks one "
            "of the first three from DDL_EMU_SEED)",
            v);
}

bool parse_strict(const char *v)
{
    if (!v || !*v || !strcmp(v, "0")) return false;
    if (!strcmp(v, "1")) return true;
    ddl_die("DDL_EMU_STRICT=%s: use 1 (the emulated GPU checks every launch, copy and stream; core/cuda/README.md) "
            "or 0",
            v);
}

uint64_t parse_seed(const char *v)
{
    if (!v || !*v) return 1;
    char *end = nullptr;
    errno = 0;
    unsigned long long s = strtoull(v, &end, 10);
    if (errno || *end || *v == '-')
        ddl_die("DDL_EMU_SEED=%s: a non-negative integer below 2^64 (it seeds the emulated GPU's thread and stream "
                "order)",
                v);
    return s;
}

// What the program's edge handed (switches.h); unset until then.
const char *g_strict, *g_order, *g_seed;

Config load()
{
    Config c;
    c.strict = parse_strict(g_strict);
    c.order = parse_order(g_order, c.strict);
    c.seed = parse_seed(g_seed);
    return c;
}

} // namespace

const Config &config()
{
    static const Config c = load();
    return c;
}

const char *order_name(Order o) { return ORDER_NAMES[static_cast<unsigned>(o)]; }

void fill_pattern(void *dst, size_t bytes, uint32_t word)
{
    uint64_t two = (uint64_t)word << 32 | word;
    char *p = static_cast<char *>(dst);
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) std::memcpy(p + i, &two, 8);
    if (i < bytes) std::memcpy(p + i, &two, bytes - i);
}

void report(const char *detector, const char *fmt, ...)
{
    static std::atomic<bool> reporting{ false };
    if (reporting.exchange(true))
        for (;;) pause(); // another thread's report ends the process
    char what[1024], where[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    describe_running(where, sizeof where);
    const Config &c = config();
    ddl_die("emulated GPU, strict mode: %s: %s%s%s [DDL_EMU_ORDER=%s DDL_EMU_SEED=%llu]", detector, what,
            *where ? "\n  " : "", where, order_name(c.order), (unsigned long long)c.seed);
}

} // namespace ddl_emu

extern "C" void ddl_emu_switches_set(const char *strict, const char *order, const char *seed)
{
    ddl_emu::g_strict = strict;
    ddl_emu::g_order = order;
    ddl_emu::g_seed = seed;
}

// arena.cc - the emulated GPU's device memory (memory.h).
//
// Device memory is one reserved mapping, PROT_NONE except while a kernel,
// a copy or a GEMM runs (memory_open/close). Host code that dereferences a
// device pointer therefore crashes at once, as it would with a real GPU,
// instead of reading the right numbers by accident: that is the point of
// emulating the GPU at all. Allocation is first-fit with coalescing over
// the used part of the mapping. Without strict mode new memory is not
// cleared (like cudaMalloc, it holds whatever was there); with it, it is
// filled with a pattern and surrounded by red zones (memory.h).
#include <cuda_runtime.h>

#include <sys/mman.h>
#include <unistd.h>

#include <map>
#include <mutex>

#include "memory.h"
#include "strict.h"

extern "C" {
#include "util/common.h"
}

namespace ddl_emu {

namespace {

constexpr size_t ALIGN = 256; // cudaMalloc's alignment

struct Block {
    size_t off, size;                    // the block in the arena, red zones included
    size_t bytes;                        // asked for
    std::map<size_t, size_t> unwritten;  // strict: offset from the user pointer -> length
};

struct Arena {
    std::mutex mu;
    char *base = nullptr;
    size_t reserved = 0;
    size_t top = 0;                 // bytes handed out so far from the bottom (high-water)
    std::map<size_t, size_t> free_; // offset -> size, coalesced
    std::map<char *, Block> live;   // user pointer -> its block
    int open_count = 0;
    size_t in_use = 0;
};

Arena &arena()
{
    static Arena a;
    return a;
}

// Protection changes in units of this: the arena asks for transparent huge
// pages, so that opening and closing it before and after every kernel
// rewrites one page-table entry per 2 MiB instead of one per 4 KiB (with
// 4 KiB pages, mprotect took 85% of an emulated MobileNetV2 step).
constexpr size_t HUGE = (size_t)2 << 20;

// Reserve half the machine's memory as the device's: address space only,
// PROT_NONE and MAP_NORESERVE, so nothing is committed until used.
void reserve(Arena &a)
{
    if (a.base) return;
    size_t phys = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    a.reserved = phys / 2 / HUGE * HUGE;
    void *p = mmap(nullptr, a.reserved + HUGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) ddl_die("emulated GPU: cannot reserve %zu bytes of address space for device memory", a.reserved);
    uintptr_t aligned = ((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
    a.base = reinterpret_cast<char *>(aligned);
    (void)madvise(a.base, a.reserved, MADV_HUGEPAGE); // a hint: 4 KiB pages still work, only slower
}

size_t page_round(size_t n) { return (n + HUGE - 1) / HUGE * HUGE; }

void protect(Arena &a, int prot)
{
    if (a.top && mprotect(a.base, page_round(a.top), prot) != 0)
        ddl_die("emulated GPU: mprotect of device memory failed");
}

// Open and close with a.mu held.
void open_locked(Arena &a)
{
    if (a.open_count++ == 0) protect(a, PROT_READ | PROT_WRITE);
}

void close_locked(Arena &a)
{
    if (--a.open_count == 0) protect(a, PROT_NONE);
}

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// The block holding p (its end included), or null; a.mu held.
Block *find_locked(Arena &a, const void *p, char **user)
{
    const char *c = static_cast<const char *>(p);
    auto it = a.live.upper_bound(const_cast<char *>(c));
    if (it == a.live.begin()) return nullptr;
    --it;
    if (c > it->first + it->second.bytes) return nullptr;
    *user = it->first;
    return &it->second;
}

// First-fit from the free list, else from the top: the block's offset, or
// SIZE_MAX when the arena is full; a.mu held.
size_t take(Arena &a, size_t need)
{
    for (auto it = a.free_.begin(); it != a.free_.end(); ++it) {
        if (it->second < need) continue;
        size_t off = it->first, rest = it->second - need;
        a.free_.erase(it);
        if (rest) a.free_[off + need] = rest;
        return off;
    }
    if (need > a.reserved - a.top) return SIZE_MAX;
    size_t off = a.top;
    a.top += need;
    if (a.open_count && mprotect(a.base, page_round(a.top), PROT_READ | PROT_WRITE) != 0)
        ddl_die("emulated GPU: mprotect of device memory failed");
    return off;
}

void give_back(Arena &a, size_t off, size_t size)
{
    auto next = a.free_.find(off + size);
    if (next != a.free_.end()) {
        size += next->second;
        a.free_.erase(next);
    }
    auto prev = a.free_.lower_bound(off);
    if (prev != a.free_.begin() && (--prev)->first + prev->second == off) prev->second += size;
    else a.free_[off] = size;
}

// The pattern byte that belongs at address p.
inline unsigned char pattern_byte(const void *p, uint32_t word)
{
    return reinterpret_cast<const unsigned char *>(&word)[(uintptr_t)p & 3];
}

// First byte of [p, p + n) that differs from the pattern, or n.
size_t first_changed(const char *p, size_t n, uint32_t word)
{
    size_t i = 0;
    while (i < n && ((uintptr_t)(p + i) & 7)) {
        if ((unsigned char)p[i] != pattern_byte(p + i, word)) return i;
        i++;
    }
    uint64_t two = (uint64_t)word << 32 | word, v;
    for (; i + 8 <= n; i += 8) {
        std::memcpy(&v, p + i, 8);
        if (v != two) break;
    }
    for (; i < n; i++)
        if ((unsigned char)p[i] != pattern_byte(p + i, word)) return i;
    return n;
}

// Whether every byte of [p, p + n) holds the pattern.
bool all_kept(const char *p, size_t n, uint32_t word)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] != pattern_byte(p + i, word)) return false;
    return true;
}

// Erases [lo, hi) from a set of intervals.
void erase_range(std::map<size_t, size_t> &s, size_t lo, size_t hi)
{
    if (s.empty() || lo >= hi) return;
    auto it = s.upper_bound(lo);
    if (it != s.begin()) --it;
    while (it != s.end() && it->first < hi) {
        size_t a = it->first, b = a + it->second;
        if (b <= lo) {
            ++it;
            continue;
        }
        it = s.erase(it);
        if (a < lo) s[a] = lo - a;
        if (b > hi) s[hi] = b - hi;
    }
}

// Re-reads a block's unwritten bytes: those no longer holding the fill
// were written (by a kernel). Word by word (4 bytes, aligned): a word with
// any byte changed counts as written whole, so that a value that happens
// to share a byte with the fill (1 in 256 per byte) is not taken for
// unwritten; all four bytes equal to the fill by chance is 1 in 2^32, and
// no arithmetic yields that word (a signalling NaN). Memory open, a.mu held.
void rescan(Block &b, const char *user)
{
    std::map<size_t, size_t> keep;
    uint64_t two = (uint64_t)FRESH_WORD << 32 | FRESH_WORD;
    for (const auto &iv : b.unwritten) {
        size_t i = iv.first, hi = iv.first + iv.second, run = SIZE_MAX; // run: start of the kept stretch
        while (i < hi) {
            size_t next = (i & ~(size_t)3) + 4;
            bool kept;
            uint64_t v;
            if (!(i & 7) && i + 8 <= hi && (std::memcpy(&v, user + i, 8), v == two)) {
                next = i + 8; // the common case: two untouched words at once
                kept = true;
            } else {
                if (next > hi) next = hi;
                kept = all_kept(user + i, next - i, FRESH_WORD);
            }
            if (kept && run == SIZE_MAX) run = i;
            if (!kept && run != SIZE_MAX) {
                keep[run] = i - run;
                run = SIZE_MAX;
            }
            i = next;
        }
        if (run != SIZE_MAX) keep[run] = hi - run;
    }
    b.unwritten.swap(keep);
}

// Offset (from the block's start) of the first changed red-zone byte, or
// SIZE_MAX. Memory open.
size_t redzone_damage(Arena &a, const Block &b)
{
    const char *start = a.base + b.off, *user = start + REDZONE;
    size_t front = first_changed(start, REDZONE, REDZONE_WORD);
    if (front < REDZONE) return front;
    size_t tail = b.size - REDZONE - b.bytes, t = first_changed(user + b.bytes, tail, REDZONE_WORD);
    return t < tail ? REDZONE + b.bytes + t : SIZE_MAX;
}

} // namespace

void memory_open()
{
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    open_locked(a);
}

void memory_close()
{
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    close_locked(a);
}

bool is_device_pointer(const void *p)
{
    Arena &a = arena();
    const char *c = static_cast<const char *>(p);
    return a.base && c >= a.base && c < a.base + a.reserved;
}

size_t arena_reserved()
{
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    reserve(a);
    return a.reserved;
}

size_t arena_in_use()
{
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    return a.in_use;
}

int arena_alloc(void **p, size_t bytes)
{
    *p = nullptr;
    if (bytes == 0) return 0;
    bool st = strict();
    size_t need = st ? REDZONE + round_up(bytes, ALIGN) + REDZONE : round_up(bytes, ALIGN);
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    reserve(a);
    size_t off = take(a, need);
    if (off == SIZE_MAX) return 1;
    char *user = a.base + off + (st ? REDZONE : 0);
    Block &b = a.live[user];
    b = Block{ off, need, bytes, {} };
    a.in_use += need;
    if (st) {
        open_locked(a);
        fill_pattern(a.base + off, need, REDZONE_WORD);
        fill_pattern(user, bytes, FRESH_WORD);
        close_locked(a);
        b.unwritten[0] = bytes;
    }
    *p = user;
    return 0;
}

int arena_free(void *p)
{
    if (!p) return 0;
    Arena &a = arena();
    std::unique_lock<std::mutex> g(a.mu);
    if (!is_device_pointer(p)) return 1;
    auto it = a.live.find(static_cast<char *>(p));
    if (it == a.live.end()) return 1;
    Block b = it->second;
    if (strict()) {
        open_locked(a);
        bool damaged = redzone_damage(a, b) != SIZE_MAX;
        if (!damaged) fill_pattern(a.base + b.off, b.size, FREED_WORD);
        close_locked(a);
        if (damaged) {
            g.unlock();
            report_redzone(static_cast<char *>(p), "at cudaFree");
        }
    }
    a.live.erase(it);
    a.in_use -= b.size;
    give_back(a, b.off, b.size);
    return 0;
}

bool find_allocation(const void *p, const char **user, size_t *bytes)
{
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    char *u = nullptr;
    Block *b = find_locked(a, p, &u);
    if (!b) return false;
    *user = u;
    *bytes = b->bytes;
    return true;
}

void check_range(const char *what, const void *p, size_t bytes)
{
    if (!strict() || bytes == 0) return;
    const char *user = nullptr;
    size_t have = 0;
    if (!find_allocation(p, &user, &have))
        report("out-of-bounds", "%s: %p is not in a live allocation (freed, or never allocated)", what, p);
    size_t off = (size_t)(static_cast<const char *>(p) - user);
    if (bytes > have - off)
        report("out-of-bounds", "%s: %zu bytes at offset %zu of an allocation of %zu bytes run %zu bytes past its end",
               what, bytes, off, have, off + bytes - have);
}

void mark_written(const void *p, size_t bytes)
{
    if (!strict() || bytes == 0) return;
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    char *user = nullptr;
    Block *b = find_locked(a, p, &user);
    if (!b) return;
    size_t off = (size_t)(static_cast<const char *>(p) - user);
    erase_range(b->unwritten, off, off + bytes);
}

void copy_written(const void *dst, const void *src, size_t bytes)
{
    if (!strict() || bytes == 0) return;
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    char *du = nullptr, *su = nullptr;
    Block *db = find_locked(a, dst, &du), *sb = find_locked(a, src, &su);
    if (!db || !sb) return;
    size_t doff = (size_t)(static_cast<const char *>(dst) - du), soff = (size_t)(static_cast<const char *>(src) - su);
    std::map<size_t, size_t> carried; // src's unwritten bytes in the copied range, at dst's offsets
    for (const auto &iv : sb->unwritten) {
        size_t lo = iv.first > soff ? iv.first : soff, hi = iv.first + iv.second;
        if (hi > soff + bytes) hi = soff + bytes;
        if (lo < hi) carried[lo - soff + doff] = hi - lo;
    }
    erase_range(db->unwritten, doff, doff + bytes);
    for (const auto &iv : carried) db->unwritten[iv.first] = iv.second;
}

void check_written(const char *what, const void *p, size_t bytes)
{
    if (!strict() || bytes == 0) return;
    Arena &a = arena();
    std::unique_lock<std::mutex> g(a.mu);
    char *user = nullptr;
    Block *b = find_locked(a, p, &user);
    if (!b) return;
    size_t lo = (size_t)(static_cast<const char *>(p) - user), hi = lo + bytes;
    auto it = b->unwritten.upper_bound(lo);
    if (it != b->unwritten.begin()) --it;
    for (; it != b->unwritten.end() && it->first < hi; ++it) {
        size_t s = it->first > lo ? it->first : lo, e = it->first + it->second < hi ? it->first + it->second : hi;
        if (s >= e) continue;
        size_t total = b->bytes;
        g.unlock();
        report("uninitialised-copy",
               "%s reads %zu bytes that nothing wrote, from offset %zu of an allocation of %zu bytes (read range "
               "%zu..%zu): they hold the emulator's fill, garbage on a GPU",
               what, e - s, s, total, lo, hi);
    }
}

bool after_kernel(const void *const *ptrs, int n, const char **damaged)
{
    if (!strict()) return true;
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    const char *seen[64];
    int nseen = 0;
    for (int i = 0; i < n; i++) {
        char *user = nullptr;
        Block *b = ptrs[i] ? find_locked(a, ptrs[i], &user) : nullptr;
        if (!b) continue;
        bool dup = false;
        for (int k = 0; k < nseen; k++) dup |= seen[k] == user;
        if (dup) continue;
        if (nseen < 64) seen[nseen++] = user;
        if (!b->unwritten.empty()) rescan(*b, user);
        if (redzone_damage(a, *b) != SIZE_MAX) {
            *damaged = user;
            return false;
        }
    }
    return true;
}

bool redzones_intact(const char *user)
{
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    auto it = a.live.find(const_cast<char *>(user));
    return it == a.live.end() || redzone_damage(a, it->second) == SIZE_MAX;
}

void repair_redzones(const char *user)
{
    Arena &a = arena();
    std::lock_guard<std::mutex> g(a.mu);
    auto it = a.live.find(const_cast<char *>(user));
    if (it == a.live.end()) return;
    const Block &b = it->second;
    fill_pattern(a.base + b.off, REDZONE, REDZONE_WORD);
    // The tail starts mid-word: the pattern's bytes stay at their addresses.
    size_t tail = b.off + REDZONE + b.bytes, end = b.off + b.size;
    for (size_t i = tail; i < end; i++) a.base[i] = (char)pattern_byte(a.base + i, REDZONE_WORD);
}

void report_redzone(const char *user, const char *when)
{
    Arena &a = arena();
    size_t at = SIZE_MAX, bytes = 0;
    {
        std::lock_guard<std::mutex> g(a.mu);
        auto it = a.live.find(const_cast<char *>(user));
        if (it != a.live.end()) {
            open_locked(a);
            at = redzone_damage(a, it->second);
            close_locked(a);
            bytes = it->second.bytes;
        }
    }
    long rel = at == SIZE_MAX ? 0 : (long)at - (long)REDZONE;
    if (rel < 0)
        report("out-of-bounds-write", "%s: the red zone before an allocation of %zu bytes was written, %ld bytes before "
               "its start", when, bytes, -rel);
    report("out-of-bounds-write",
           "%s: the red zone after an allocation of %zu bytes was written, at offset %ld (its last byte is at %ld)",
           when, bytes, rel, (long)bytes - 1);
}

} // namespace ddl_emu

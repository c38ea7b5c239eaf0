/* nfq_delay.c - the sending end of an emulated link: every packet of one
 * NFQUEUE queue leaves when a wire of the given rate would have finished
 * sending it, plus the link's latency; in arrival order.
 *
 * Why this exists: the usual tool, tc netem (rate and delay), is not in
 * every kernel (it is not in the one ddlab was built on), while NFQUEUE
 * is. tc TBF shapes the rate on its own, but only on average: it lets a
 * burst through at memory speed (it needs one, see labs/net/cluster.sh),
 * so a message smaller than the burst would cross the link for free and
 * the alpha-beta fit of a ping-pong would see no beta. A wire has no burst.
 * labs/net/cluster.sh starts one nfq_delay in each emulated host's network
 * namespace and an iptables rule there that sends the host's packets to
 * the emulated network (198.18.0.0/24) to queue 0: every packet then pays
 * its serialization time at the sender's link rate and the latency once,
 * so the one-way time of an n-byte message is latency + wire(n) / rate,
 * and a ping's round trip grows by twice the latency.
 *
 * How: the kernel hands us the packet's id and its first bytes (the IP and
 * TCP headers, for its length and its frame count), with GSO packets kept
 * whole (NFQA_CFG_F_GSO: one verdict per GSO packet instead of per
 * 1500-byte frame). A virtual wire clock gives each packet its end of
 * transmission, max(arrival, wire free) + wire bytes / rate, where wire
 * bytes count an Ethernet header per 1500-byte frame as TBF does; due =
 * end + latency. Ids go into a FIFO with their due times (which only grow);
 * the loop sleeps in ppoll until a packet arrives or the head is due, then
 * gives every due packet its NF_ACCEPT in one batch verdict (ids grow with
 * arrival order). Waking late delays packets but loses no rate: the wire
 * clock runs on the ideal times. On exit we print how late packets were
 * released (mean and max), so a run can say what it got.
 *
 *   nfq_delay [--rate-bps 1e9] [--delay-us 200] [--queue 0] [--max-held 65536]
 * Runs until SIGTERM/SIGINT; then lets every held packet go and exits 0. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>

#include <libnetfilter_queue/libnetfilter_queue.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

typedef struct {
    uint32_t id;
    int64_t due_ns;
} Held;

/* The packets held, oldest first: a ring of fixed capacity. */
typedef struct {
    Held *slot;
    size_t cap, head, n;
    int64_t delay_ns;
    double ns_per_byte;   /* 8e9 / rate; 0: no rate, the latency alone */
    double wire_free_ns;  /* when the virtual wire finishes what it was given */
    struct nfq_q_handle *qh;
    /* what we report at exit */
    unsigned long long packets, batches, forced;
    double late_sum_ns, late_max_ns;
} Queue;

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { (void)sig; stop_requested = 1; }

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Accept every held packet up to and including the k-th oldest (k >= 1). */
static void release(Queue *q, size_t k, int64_t now)
{
    const Held *last = &q->slot[(q->head + k - 1) % q->cap];
    for (size_t i = 0; i < k; i++) {
        double late = (double)(now - q->slot[(q->head + i) % q->cap].due_ns);
        if (late < 0) late = 0; /* forced out early: counted in 'forced' */
        q->late_sum_ns += late;
        if (late > q->late_max_ns) q->late_max_ns = late;
    }
    if (nfq_set_verdict_batch(q->qh, last->id, NF_ACCEPT) < 0)
        fprintf(stderr, "nfq_delay: verdict for packet %u failed: %s\n", last->id, strerror(errno));
    q->head = (q->head + k) % q->cap;
    q->n -= k;
    q->packets += k;
    q->batches++;
}

static void release_due(Queue *q, int64_t now)
{
    size_t k = 0;
    while (k < q->n && q->slot[(q->head + k) % q->cap].due_ns <= now) k++;
    if (k > 0) release(q, k, now);
}

/* Bytes on the wire for one IPv4 packet (a GSO packet counts its frames):
 * each 1500-byte frame carries the IP and TCP headers again, plus 14 bytes
 * of Ethernet header (what TBF counts too; no preamble or gap). */
static double wire_bytes(const unsigned char *ip, int len)
{
    enum { MTU = 1500, ETH = 14 };
    if (len < 20 || (ip[0] >> 4) != 4) return len > 0 ? len + ETH : ETH + MTU;
    unsigned total = (unsigned)ip[2] << 8 | ip[3], ihl = (ip[0] & 15u) * 4u, hdr = ihl;
    if (ip[9] == 6 && len >= (int)ihl + 13) hdr += (unsigned)(ip[ihl + 12] >> 4) * 4u; /* TCP data offset */
    if (hdr >= MTU || total < hdr) return total + ETH;
    unsigned data = total - hdr, per = MTU - hdr;
    unsigned frames = data == 0 ? 1 : (data + per - 1) / per;
    return (double)data + frames * (double)(hdr + ETH);
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *data)
{
    (void)qh;
    (void)msg;
    Queue *q = data;
    struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
    if (!ph) return 0;
    int64_t now = now_ns();
    double end = (double)now;
    if (q->ns_per_byte > 0) {
        unsigned char *ip = NULL;
        int len = nfq_get_payload(nfa, &ip);
        double start = q->wire_free_ns > end ? q->wire_free_ns : end;
        end = q->wire_free_ns = start + wire_bytes(ip, len) * q->ns_per_byte;
    }
    if (q->n == q->cap) { /* cannot happen while the kernel's queue is no longer than ours */
        q->forced++;
        release(q, 1, now);
    }
    Held *h = &q->slot[(q->head + q->n) % q->cap];
    h->id = ntohl(ph->packet_id);
    h->due_ns = (int64_t)end + q->delay_ns;
    q->n++;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: nfq_delay [--rate-bps BITS_PER_S] [--delay-us US] [--queue N] [--max-held PACKETS] [--realtime]\n"
               "  Holds every packet of NFQUEUE queue N (default 0) until a wire of that rate would have\n"
               "  sent it (one after the other), plus US microseconds of latency, then accepts it.\n"
               "  Run as root inside the network namespace whose iptables rule queues the packets\n"
               "  (labs/net/cluster.sh does both). Stops on SIGTERM/SIGINT, releasing what it holds,\n"
               "  and prints how late packets were released. --realtime: SCHED_FIFO priority 10, so that\n"
               "  busy processes do not delay the releases.\n");
}

static int parse_long(const char *flag, const char *v, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || errno || end == v || *end || x < lo || x > hi) {
        fprintf(stderr, "nfq_delay: %s needs a whole number in %ld..%ld (got '%s')\n", flag, lo, hi, v ? v : "");
        return -1;
    }
    *out = x;
    return 0;
}

/* Kernel-side settings; the GSO flag is an optimisation (older kernels
 * lack it), the rest is required. */
static int configure(struct nfq_handle *h, Queue *q, long queue_num)
{
    nfq_unbind_pf(h, AF_INET); /* no-ops on kernels >= 3.8, needed before */
    nfq_bind_pf(h, AF_INET);
    q->qh = nfq_create_queue(h, (uint16_t)queue_num, on_packet, q);
    if (!q->qh) {
        fprintf(stderr, "nfq_delay: cannot bind queue %ld (%s): another program holds it, or not root\n", queue_num,
                strerror(errno));
        return -1;
    }
    /* Only the headers are needed: the IP length and the TCP header size. */
    unsigned copy = q->ns_per_byte > 0 ? 128u : 0u;
    if (nfq_set_mode(q->qh, copy ? NFQNL_COPY_PACKET : NFQNL_COPY_META, copy) < 0 || nfq_set_queue_maxlen(q->qh, (uint32_t)q->cap) < 0) {
        fprintf(stderr, "nfq_delay: cannot configure queue %ld: %s\n", queue_num, strerror(errno));
        return -1;
    }
    if (nfq_set_queue_flags(q->qh, NFQA_CFG_F_GSO, NFQA_CFG_F_GSO) < 0)
        fprintf(stderr, "nfq_delay: note: this kernel cannot queue GSO packets whole (more verdicts per byte)\n");
    /* A lost netlink message would strand its packet in the kernel queue:
     * a large receive buffer, and no ENOBUFS errors breaking the loop. */
    int fd = nfq_fd(h), one = 1, bytes = 8 << 20;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) < 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
    setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof one);
    return 0;
}

/* Read every message waiting on the socket (non-blocking). */
static void drain(struct nfq_handle *h, char *buf, size_t cap)
{
    for (;;) {
        ssize_t n = recv(nfq_fd(h), buf, cap, MSG_DONTWAIT);
        if (n > 0) {
            nfq_handle_packet(h, buf, (int)n);
            continue;
        }
        if (n < 0 && errno == ENOBUFS) continue; /* overrun: the next messages are still good */
        return;                                  /* EAGAIN (empty), EINTR, or closed */
    }
}

static void serve(struct nfq_handle *h, Queue *q, const sigset_t *waitmask)
{
    static char buf[1 << 16];
    struct pollfd pfd = { .fd = nfq_fd(h), .events = POLLIN };
    while (!stop_requested) {
        struct timespec ts, *timeout = NULL;
        if (q->n > 0) {
            int64_t wait = q->slot[q->head].due_ns - now_ns();
            if (wait < 0) wait = 0;
            ts.tv_sec = (time_t)(wait / 1000000000);
            ts.tv_nsec = (long)(wait % 1000000000);
            timeout = &ts;
        }
        int r = ppoll(&pfd, 1, timeout, waitmask);
        if (r < 0 && errno != EINTR) {
            fprintf(stderr, "nfq_delay: ppoll: %s\n", strerror(errno));
            break;
        }
        if (r > 0 && (pfd.revents & POLLIN)) drain(h, buf, sizeof buf);
        release_due(q, now_ns());
    }
}

int main(int argc, char **argv)
{
    long delay_us = 0, queue_num = 0, max_held = 65536;
    double rate = 0;
    int realtime = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--realtime")) {
            realtime = 1;
            continue; /* a flag: no value */
        } else if (!strcmp(a, "--delay-us")) bad = parse_long(a, v, 0, 1000000, &delay_us);
        else if (!strcmp(a, "--rate-bps")) {
            char *end = NULL;
            rate = v ? strtod(v, &end) : 0;
            bad = !v || end == v || *end || !(rate >= 1e5 && rate <= 1e11);
            if (bad) fprintf(stderr, "nfq_delay: --rate-bps needs bits per second in 1e5..1e11 (got '%s')\n", v ? v : "");
        }
        else if (!strcmp(a, "--queue")) bad = parse_long(a, v, 0, 65535, &queue_num);
        else if (!strcmp(a, "--max-held")) bad = parse_long(a, v, 16, 1 << 22, &max_held);
        else {
            fprintf(stderr, "nfq_delay: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (bad) return 2;
        i++;
    }
    if (delay_us == 0 && rate == 0) {
        fprintf(stderr, "nfq_delay: give --rate-bps, --delay-us or both\n");
        usage(stderr);
        return 2;
    }

    Queue q = { .cap = (size_t)max_held, .delay_ns = delay_us * 1000, .ns_per_byte = rate > 0 ? 8e9 / rate : 0 };
    q.slot = calloc(q.cap, sizeof *q.slot);
    if (!q.slot) {
        fprintf(stderr, "nfq_delay: out of memory for %ld held packets\n", max_held);
        return 1;
    }
    /* Signals only interrupt ppoll: no stop request is lost between the
     * flag check and the sleep. The default 50 us timer slack would add
     * itself to every delay. */
    sigset_t block, waitmask;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &waitmask);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    /* The ranks of an emulated cluster keep every core busy (MPI polls
     * while it waits), and a packet released late is a wire that stood
     * still: measured on 2 shared cores, releases were late by 45-60 us on
     * average and up to 15 ms at normal priority. A real-time priority lets
     * us preempt them; we only ever sleep in ppoll or do a few syscalls per
     * packet, and the kernel caps real-time tasks at 95% of a core. */
    if (realtime) {
        struct sched_param sp = { .sched_priority = 10 };
        if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
            fprintf(stderr, "nfq_delay: note: no real-time priority (%s): releases may be late under load\n",
                    strerror(errno));
    }

    struct nfq_handle *h = nfq_open();
    if (!h) {
        fprintf(stderr, "nfq_delay: cannot open NFQUEUE (%s): needs root and the nfnetlink_queue module\n",
                strerror(errno));
        free(q.slot);
        return 1;
    }
    int status = 0;
    if (configure(h, &q, queue_num) == 0) {
        fprintf(stderr, "nfq_delay: queue %ld, rate %.4g bit/s, delay %ld us: ready\n", queue_num, rate, delay_us);
        serve(h, &q, &waitmask);
        if (q.n > 0) release(&q, q.n, now_ns()); /* nothing stays stranded */
        fprintf(stderr,
                "nfq_delay: queue %ld, rate %.4g bit/s, delay %ld us: %llu packets held (%llu verdicts), released late by mean %.1f "
                "us, max %.1f us%s\n",
                queue_num, rate, delay_us, q.packets, q.batches, q.packets ? q.late_sum_ns / (double)q.packets / 1e3 : 0.0,
                q.late_max_ns / 1e3, q.forced ? " (some released early: queue full)" : "");
        nfq_destroy_queue(q.qh);
    } else {
        status = 1;
    }
    nfq_close(h);
    free(q.slot);
    return status;
}

/* nfq_delay.c - the latency of an emulated link: hold every packet of one
 * NFQUEUE queue for a fixed delay, then let it go, in arrival order.
 *
 * Why this exists: the usual tool, tc netem, is not in every kernel (it is
 * not in the one ddlab was built on), while NFQUEUE is. labs/net/cluster.sh
 * starts one nfq_delay in each emulated host's network namespace and adds
 * an nftables rule there that sends the host's outgoing packets to the
 * emulated network (198.18.0.0/15) to queue 0; every packet is then late
 * by the delay once, at its sender, so the one-way latency between two
 * hosts grows by the delay and a ping's round trip by twice the delay.
 *
 * How: the kernel hands us only the packet's id (NFQNL_COPY_META: no
 * payload is copied), with GSO packets kept whole (NFQA_CFG_F_GSO: one
 * verdict per 64 KiB burst instead of per 1500-byte frame). Each id goes
 * into a FIFO with its due time (arrival + delay); the loop sleeps in
 * ppoll until the next packet arrives or the head is due, then gives every
 * due packet its NF_ACCEPT in one batch verdict (ids grow with arrival
 * order, and every packet up to the last due one is due). The delay is a
 * lower bound: a busy machine wakes us late. On exit we print how late
 * packets were released (mean and max), so a run can say what it got.
 *
 *   nfq_delay --delay-us 200 [--queue 0] [--max-held 65536]
 * Runs until SIGTERM/SIGINT; then lets every held packet go and exits 0. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>
#include <poll.h>
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

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *data)
{
    (void)qh;
    (void)msg;
    Queue *q = data;
    struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
    if (!ph) return 0;
    int64_t now = now_ns();
    if (q->n == q->cap) { /* cannot happen while the kernel's queue is no longer than ours */
        q->forced++;
        release(q, 1, now);
    }
    Held *h = &q->slot[(q->head + q->n) % q->cap];
    h->id = ntohl(ph->packet_id);
    h->due_ns = now + q->delay_ns;
    q->n++;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: nfq_delay --delay-us US [--queue N] [--max-held PACKETS]\n"
               "  Holds every packet of NFQUEUE queue N (default 0) for US microseconds, then accepts it.\n"
               "  Run as root inside the network namespace whose nftables rules queue the packets\n"
               "  (labs/net/cluster.sh does both). Stops on SIGTERM/SIGINT, releasing what it holds,\n"
               "  and prints how late packets were released.\n");
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
    if (nfq_set_mode(q->qh, NFQNL_COPY_META, 0) < 0 || nfq_set_queue_maxlen(q->qh, (uint32_t)q->cap) < 0) {
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
    long delay_us = -1, queue_num = 0, max_held = 65536;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--delay-us")) bad = parse_long(a, v, 1, 1000000, &delay_us);
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
    if (delay_us < 0) {
        fprintf(stderr, "nfq_delay: --delay-us is required\n");
        usage(stderr);
        return 2;
    }

    Queue q = { .cap = (size_t)max_held, .delay_ns = delay_us * 1000 };
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

    struct nfq_handle *h = nfq_open();
    if (!h) {
        fprintf(stderr, "nfq_delay: cannot open NFQUEUE (%s): needs root and the nfnetlink_queue module\n",
                strerror(errno));
        free(q.slot);
        return 1;
    }
    int status = 0;
    if (configure(h, &q, queue_num) == 0) {
        fprintf(stderr, "nfq_delay: queue %ld, delay %ld us: ready\n", queue_num, delay_us);
        serve(h, &q, &waitmask);
        if (q.n > 0) release(&q, q.n, now_ns()); /* nothing stays stranded */
        fprintf(stderr,
                "nfq_delay: queue %ld, delay %ld us: %llu packets held (%llu verdicts), released late by mean %.1f "
                "us, max %.1f us%s\n",
                queue_num, delay_us, q.packets, q.batches, q.packets ? q.late_sum_ns / (double)q.packets / 1e3 : 0.0,
                q.late_max_ns / 1e3, q.forced ? " (some released early: queue full)" : "");
        nfq_destroy_queue(q.qh);
    } else {
        status = 1;
    }
    nfq_close(h);
    free(q.slot);
    return status;
}

# grade-broken: lab2/recdoubling (alone) - forgets to send the result back to the
# ranks folded out at non-powers of two: they wait for it forever (the
# per-test timeout must end it). Right at 1, 2, 4 ranks.
# (sed over the item's reference file, core/comm/alg_recdoubling.c)
/^        sched_finish(s, 0, count);$/{
  n
  /^    }$/{
    N
    s/^    }\n    sched_fold_out(s, &f, rank, count);$/    } else {\n        sched_fold_out(s, \&f, rank, count); \/* only the receiving side *\/\n    }/
  }
}

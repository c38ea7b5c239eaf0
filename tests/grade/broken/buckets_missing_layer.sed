# grade-broken: lab3/buckets - stops one layer early: the first layer's
# tensors are in no bucket, so DDP would never average them.
# (sed over the item's reference file, core/sync/buckets.c)
/^    Bucket cur = /a\
    int stop = 0;\
    while (stop < np && p[stop].layer == p[0].layer) stop++;
s/for (int j = np - 1; j >= 0; j--)/for (int j = np - 1; j >= stop; j--)/
s/close = j == 0 ||/close = j == stop ||/

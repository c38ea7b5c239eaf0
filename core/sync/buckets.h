/* buckets.h - DDP's bucket assignment: which parameter tensors travel
 * together. In a file of its own because it is lab3's exercise
 * (labs/lab3/exercises/buckets.c replaces buckets.c in student builds). */
#ifndef DDL_SYNC_BUCKETS_H
#define DDL_SYNC_BUCKETS_H

#include <stddef.h>
#include "../model/model.h"

/* A bucket: the slice [off, off+count) of the gradient arena, holding
 * whole parameter tensors of the layers first_layer..last_layer (forward
 * indices; the bucket fills in reverse, so last_layer's gradients are ready
 * first). Horovod's fusion groups are slices of the same kind. */
typedef struct Bucket {
    size_t off, count;
    int first_layer, last_layer;
    int nparams;               /* parameter tensors in the bucket */
} Bucket;

/* Assign buckets as PyTorch's compute_bucket_assignment_by_size does for
 * one device: parameter tensors in reverse model order go into the current
 * bucket, which closes once it holds at least its cap in bytes (the first
 * bucket's cap is first_bytes, the others' cap_bytes); cap_bytes 0 puts each
 * layer's tensors in a bucket of their own. Returns the bucket count (<= the
 * number of parameter tensors); writes up to `cap` buckets to out. */
int sync_assign_buckets(const Model *m, size_t first_bytes, size_t cap_bytes, Bucket *out, int cap);

#endif

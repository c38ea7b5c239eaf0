/* Exercise (lab3): DDP bucket assignment. Replaces core/sync/buckets.c in
 * `make lab3 IMPL=student` and in `make grade` (item "buckets"; tests:
 * test_buckets, which compares your buckets with PyTorch 1.13's DDP for
 * vgg11 and resnet18 at several caps and checks the rule itself).
 *
 * What you have (model.h): model_param_list(m, out, cap) lists the
 * parameter tensors in arena (= model) order: name, off, count (elements)
 * and layer; it returns how many there are (call it with NULL, 0 to
 * count). Tensors sit back to back in the gradient arena.
 *
 * Contract (buckets.h): walk the tensors in REVERSE model order (backward
 * makes the last layers' gradients first) and add each to the current
 * bucket; close the bucket as soon as it holds at least its cap in bytes
 * (count * sizeof(float)): first_bytes for the first bucket, cap_bytes for
 * every later one; the last tensor (index 0) always closes the last bucket.
 * cap_bytes == 0 means one bucket per layer: close when the next tensor
 * belongs to another layer. A Bucket is the contiguous slice [off,
 * off+count) of the arena, with first_layer/last_layer the lowest/highest
 * layer index in it and nparams its tensor count. Write up to `cap`
 * buckets to out and return how many there are (also beyond cap). Every
 * tensor must be in exactly one bucket. */
#include <stdio.h>
#include <stdlib.h>

#include "util/common.h"
#include "sync/buckets.h"

int sync_assign_buckets(const Model *m, size_t first_bytes, size_t cap_bytes, Bucket *out, int cap)
{
    /* TODO: your code here (delete the two lines below). */
    fprintf(stderr, "exercise buckets not implemented\n");
    abort();
}

/* softmax_ce.c - fused softmax + cross-entropy (numerically stable: the
 * max logit is subtracted before exp). */
#include "kernels.h"

#include <math.h>

double softmax_ce_forward_cpu(const float *logits, const int32_t *labels, int n, int classes, float *probs,
                              int *correct)
{
    double loss = 0.0;
    int right = 0;
    for (int i = 0; i < n; i++) {
        const float *z = logits + (size_t)i * classes;
        float *pr = probs + (size_t)i * classes;
        float mx = z[0];
        int arg = 0;
        for (int j = 1; j < classes; j++)
            if (z[j] > mx) { mx = z[j]; arg = j; }
        double s = 0.0;
        for (int j = 0; j < classes; j++) {
            pr[j] = expf(z[j] - mx);
            s += pr[j];
        }
        float inv = (float)(1.0 / s);
        for (int j = 0; j < classes; j++) pr[j] *= inv;
        int y = labels[i];
        loss += -((double)(z[y] - mx) - log(s));
        if (arg == y) right++;
    }
    if (correct) *correct = right;
    return loss;
}

void softmax_ce_backward_cpu(const float *probs, const int32_t *labels, int n, int classes, float scale,
                             float *dlogits)
{
    for (int i = 0; i < n; i++) {
        const float *pr = probs + (size_t)i * classes;
        float *d = dlogits + (size_t)i * classes;
        for (int j = 0; j < classes; j++) d[j] = pr[j] * scale;
        d[labels[i]] -= scale;
    }
}

int labels_outside_cpu(const int32_t *labels, int n, int classes)
{
    int bad = 0;
    for (int i = 0; i < n; i++) bad += labels[i] < 0 || labels[i] >= classes;
    return bad;
}

/* workload.c - lab6's three workloads (the seed's Table I columns).
 *
 * The seed trained ResNet-50 on MNIST, MobileNet(V2) on Fashion-MNIST and
 * a small DNN on SDSS. The models are ddlab's (core/model/README.md:
 * ResNet-50 and MobileNetV2 with stems for 28x28 one-channel inputs). The
 * quick widths keep a step near 120-140 ms at batch 64 on one core of the
 * development machine (core/model/README.md); the paper profile uses
 * width 1. */
#include <string.h>

#include "lab6.h"

static const Workload WORKLOADS[] = {
    { "resnet50-mnist", "ResNet50+MNIST", "resnet50", "mnist", 0.125f },
    { "mobilenetv2-fashion", "MobileNetV2+FMNIST", "mobilenetv2", "fashion-mnist", 0.25f },
    { "sdss_dnn-sdss", "DNN+SDSS", "sdss_dnn", "sdss", 1.0f },
};
enum { NWORKLOADS = sizeof WORKLOADS / sizeof WORKLOADS[0] };

const Workload *workload_find(const char *name)
{
    for (int i = 0; i < NWORKLOADS; i++)
        if (name && !strcmp(name, WORKLOADS[i].name)) return &WORKLOADS[i];
    return NULL;
}

const char *workload_names(void) { return "resnet50-mnist, mobilenetv2-fashion, sdss_dnn-sdss"; }
int workload_count(void) { return NWORKLOADS; }
const Workload *workload_at(int i) { return i >= 0 && i < NWORKLOADS ? &WORKLOADS[i] : NULL; }

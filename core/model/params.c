/* params.c - the parameter list as one allocation, and the layout hash
 * that tells two programs built the same model (model.h). */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../util/common.h"

ParamInfo *model_param_list_alloc(const Model *m, int *n)
{
    *n = model_param_list(m, NULL, 0);
    ParamInfo *p = ddl_alloc(sizeof *p * (size_t)(*n > 0 ? *n : 1));
    model_param_list(m, p, *n);
    return p;
}

static int cmp_param_name(const void *a, const void *b)
{
    return strcmp(((const ParamInfo *)a)->name, ((const ParamInfo *)b)->name);
}

uint32_t model_param_layout(const Model *m)
{
    int n;
    ParamInfo *p = model_param_list_alloc(m, &n);
    qsort(p, (size_t)n, sizeof *p, cmp_param_name);
    uint32_t h = 2166136261u;
    for (int i = 0; i < n; i++) {
        char line[96];
        int len = snprintf(line, sizeof line, "%s %zu\n", p[i].name, p[i].count);
        for (int k = 0; k < len && k < (int)sizeof line - 1; k++) h = (h ^ (uint8_t)line[k]) * 16777619u;
    }
    ddl_free(p);
    return h;
}

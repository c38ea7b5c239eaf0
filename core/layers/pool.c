/* pool.c - max, average and global average pooling layers. */
#include "layers.h"

typedef struct { int planes, h, w, oh, ow; } PoolGeom;

static PoolGeom geom(const Model *m, const Layer *l)
{
    Shape in = m->tensors[l->in].shape, out = m->tensors[l->out].shape;
    PoolGeom g = { m->batch * in.c, in.h, in.w, out.h, out.w };
    return g;
}

/* Max and average pooling's forward: the backend's kernel of that kind. */
static void window_forward(Model *m, const Layer *l,
                           void (*f)(const float *x, float *y, int planes, int H, int W, int k, int stride, int pad,
                                     int OH, int OW))
{
    PoolGeom g = geom(m, l);
    f(model_tensor(m, l->in), model_tensor(m, l->out), g.planes, g.h, g.w, l->k, l->stride, l->pad, g.oh, g.ow);
}

void maxpool_forward(Model *m, const Layer *l) { window_forward(m, l, m->be->maxpool_forward); }

void maxpool_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    if (!need_dx) return;
    PoolGeom g = geom(m, l);
    m->be->maxpool_backward(model_tensor(m, l->in), model_tensor_grad(m, l->out), model_tensor_grad(m, l->in),
                            g.planes, g.h, g.w, l->k, l->stride, l->pad, g.oh, g.ow, acc_dx);
}

void avgpool_forward(Model *m, const Layer *l) { window_forward(m, l, m->be->avgpool_forward); }

void avgpool_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    if (!need_dx) return;
    PoolGeom g = geom(m, l);
    m->be->avgpool_backward(model_tensor_grad(m, l->out), model_tensor_grad(m, l->in), g.planes, g.h, g.w, l->k,
                            l->stride, l->pad, g.oh, g.ow, acc_dx);
}

void global_avgpool_forward(Model *m, const Layer *l)
{
    PoolGeom g = geom(m, l);
    m->be->global_avgpool_forward(model_tensor(m, l->in), model_tensor(m, l->out), g.planes, g.h * g.w);
}

void global_avgpool_backward(Model *m, const Layer *l, bool need_dx, bool acc_dx)
{
    if (!need_dx) return;
    PoolGeom g = geom(m, l);
    m->be->global_avgpool_backward(model_tensor_grad(m, l->out), model_tensor_grad(m, l->in), g.planes, g.h * g.w,
                                   acc_dx);
}

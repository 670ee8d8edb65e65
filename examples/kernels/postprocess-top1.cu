// A postprocess kernel (postprocess=user, or
// gcg_frame_chain_set_postprocess_kernel()): the top-1 class of each item.
// The model's output is float32, one row of `classes` scores per item; each
// item gets one record: its best class (ties to the lower index, NaN never
// wins), the softmax probability as its confidence, and as its box the
// whole item (0, 0, out_width, out_height in the item's tensor pixels; the
// engine maps it to source-frame pixels).  One block per item, as the
// default grid and block (256 threads) run it: blocks past this frame's
// items return, and the block size must be a power of two up to 256.
// gcg-params: scores=output,n_bytes=output_bytes,records=records,counts=counts,max_results=max_results,classes=classes,items=items,width=out_width,height=out_height
extern "C" __global__ void top1(const gcg_params *p)
{
  __shared__ float best[256];
  __shared__ int at[256];
  const int item = blockIdx.x, t = threadIdx.x;
  const float neg_inf = -__int_as_float(0x7f800000);
  // The grid covers the largest frame; this one may have fewer items.
  if (item >= p->items || blockDim.x > 256 || p->classes < 1)
    return;
  // An output smaller than the items' scores is not read past its end.
  if ((unsigned long long) (item + 1) * p->classes * sizeof(float)
      > p->n_bytes)
    return;
  const float *s = (const float *) p->scores + (size_t) item * p->classes;

  // Each thread's best of a strided share of the classes, then the block's.
  float b = neg_inf;
  int bi = 0x7fffffff;
  for (int c = t; c < p->classes; c += blockDim.x) {
    float v = s[c] != s[c] ? neg_inf : s[c];
    if (v > b || (v == b && c < bi)) {
      b = v;
      bi = c;
    }
  }
  best[t] = b;
  at[t] = bi;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k && (best[t + k] > best[t]
            || (best[t + k] == best[t] && at[t + k] < at[t]))) {
      best[t] = best[t + k];
      at[t] = at[t + k];
    }
    __syncthreads();
  }
  const float m = best[0];
  const int label = at[0] == 0x7fffffff ? 0 : at[0];
  __syncthreads();

  // Softmax's denominator: sum of exp(s - max), NaN scores left out.
  float acc = 0.0f;
  for (int c = t; c < p->classes; c += blockDim.x)
    if (s[c] == s[c])
      acc += expf(s[c] - m);
  best[t] = acc;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k)
      best[t] += best[t + k];
    __syncthreads();
  }
  if (t != 0)
    return;
  gcg_result *r = (gcg_result *) p->records + (size_t) item * p->max_results;
  r->x = 0.0f;
  r->y = 0.0f;
  r->width = (float) p->width;
  r->height = (float) p->height;
  r->confidence = best[0] > 0.0f ? 1.0f / best[0] : 0.0f;
  r->label = label;
  // item and reserved are set by the engine.
  ((unsigned int *) p->counts)[item] = 1u;
}

// A vignette on RGBA/BGRA/RGBx video: each pixel's colour is scaled by
// 1 - strength * r², r² being 0 at the centre and 1 in the corners.  The
// strength may change every frame (GcgParamsMeta key "strength").
// gcg-params: src=src0,dst=dst0,src_pitch=src_pitch0,dst_pitch=dst_pitch0,width=out_width,height=out_height,strength=meta:strength:f32:0.5
extern "C" __global__ void vignette(const gcg_params *p)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p->width || y >= p->height)
    return;
  const unsigned char *s = (const unsigned char *) p->src
      + (size_t) y * p->src_pitch + 4 * (size_t) x;
  unsigned char *d = (unsigned char *) p->dst + (size_t) y * p->dst_pitch
      + 4 * (size_t) x;
  float cx = (x + 0.5f) / p->width - 0.5f;
  float cy = (y + 0.5f) / p->height - 0.5f;
  float f = 1.0f - p->strength * 2.0f * (cx * cx + cy * cy);
  f = fminf (fmaxf (f, 0.0f), 1.0f);
  for (int c = 0; c < 3; c++)
    d[c] = (unsigned char) __fmaf_rn (s[c], f, 0.5f);
  d[3] = s[3];
}

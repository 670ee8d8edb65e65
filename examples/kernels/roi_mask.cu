// A per-ROI mask on 4-byte-per-pixel video: pixels outside the rectangle
// (roi_x, roi_y, roi_w, roi_h), given per frame, have their colour scaled
// by level (0 = black); alpha and the inside are copied.
// gcg-params: src=src0,dst=dst0,src_pitch=src_pitch0,dst_pitch=dst_pitch0,width=out_width,height=out_height,roi_x=meta:roi_x:i32,roi_y=meta:roi_y:i32,roi_w=meta:roi_w:i32,roi_h=meta:roi_h:i32,level=meta:mask_level:f32:0.25
extern "C" __global__ void roi_mask(const gcg_params *p)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p->width || y >= p->height)
    return;
  const unsigned char *s = (const unsigned char *) p->src
      + (size_t) y * p->src_pitch + 4 * (size_t) x;
  unsigned char *d = (unsigned char *) p->dst + (size_t) y * p->dst_pitch
      + 4 * (size_t) x;
  bool inside = x >= p->roi_x && y >= p->roi_y
      && (long long) x < (long long) p->roi_x + p->roi_w
      && (long long) y < (long long) p->roi_y + p->roi_h;
  float f = inside ? 1.0f : fminf (fmaxf (p->level, 0.0f), 1.0f);
  for (int c = 0; c < 3; c++)
    d[c] = (unsigned char) __fmaf_rn (s[c], f, 0.5f);
  d[3] = s[3];
}

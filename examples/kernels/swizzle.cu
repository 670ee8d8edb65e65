// A channel swizzle on 4-byte-per-pixel video: output channel c takes
// input channel (map >> 8c) & 3.  map = 0x03000102 turns RGBA into BGRA.
// gcg-params: src=src0,dst=dst0,src_pitch=src_pitch0,dst_pitch=dst_pitch0,width=out_width,height=out_height,map=meta:map:u32:0x03000102
extern "C" __global__ void swizzle(const gcg_params *p)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p->width || y >= p->height)
    return;
  const unsigned char *s = (const unsigned char *) p->src
      + (size_t) y * p->src_pitch + 4 * (size_t) x;
  unsigned char *d = (unsigned char *) p->dst + (size_t) y * p->dst_pitch
      + 4 * (size_t) x;
  unsigned char px[4] = { s[0], s[1], s[2], s[3] };
  for (int c = 0; c < 4; c++)
    d[c] = px[(p->map >> (8 * c)) & 3];
}

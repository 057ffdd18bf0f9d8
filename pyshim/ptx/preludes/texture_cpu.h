/* Texture and surface instructions on the CPU device: the handle is a pyshim_image
 * (pyshim_kernel_abi.h). Sampling follows the CUDA programming guide's texture-fetching
 * appendix: address modes on (normalized) coordinates, linear filtering with 9-bit
 * fixed-point weights (8 fractional bits), integer formats read as [0,1] / [-1,1] floats
 * when the texture says so. A handle that is not an image reads zeros. */
typedef struct ps_v4 { uint32_t w[4]; } ps_v4;

static inline const pyshim_image *ps_image(uint64_t h)
{
    const pyshim_image *img = (const pyshim_image *)(uintptr_t)h;
    return img != NULL && img->magic == PYSHIM_IMAGE_MAGIC ? img : NULL;
}

static inline uint32_t ps_fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float ps_bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float ps_half_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
    if (e == 0) {
        float v = ldexpf((float)m, -24);
        return s ? -v : v;
    }
    if (e == 31)
        return ps_bitsf(s | 0x7f800000u | (m << 13));
    return ps_bitsf(s | ((e + 112) << 23) | (m << 13));
}

/* Channel c of the element at integer coordinates (in range), as a float (normalized when
 * the image reads floats) or as integer bits. */
static inline uint32_t ps_texel_raw(const pyshim_image *img, int64_t x, int64_t y, int64_t z,
                                    int c)
{
    const char *p = img->data + z * img->slice + y * img->pitch + x * img->elem_bytes;
    unsigned cb = img->elem_bytes / img->channels;
    p += c * cb;
    switch (img->format) {
    case 0x01: return *(const uint8_t *)p;
    case 0x02: return *(const uint16_t *)p;
    case 0x08: return (uint32_t)(int32_t) * (const int8_t *)p;
    case 0x09: return (uint32_t)(int32_t) * (const int16_t *)p;
    case 0x10: return ps_fbits(ps_half_to_float(*(const uint16_t *)p));
    default: { uint32_t v; memcpy(&v, p, 4); return v; }
    }
}

static inline float ps_texel_float(const pyshim_image *img, uint32_t raw)
{
    switch (img->format) {
    case 0x01: return img->read_float ? (float)raw / 255.0f : (float)raw;
    case 0x02: return img->read_float ? (float)raw / 65535.0f : (float)raw;
    case 0x08: return img->read_float ? fmaxf((float)(int32_t)raw / 127.0f, -1.0f) : (float)(int32_t)raw;
    case 0x09: return img->read_float ? fmaxf((float)(int32_t)raw / 32767.0f, -1.0f) : (float)(int32_t)raw;
    case 0x03: return img->read_float ? (float)raw / 4294967295.0f : (float)raw;
    case 0x0a: return img->read_float ? fmaxf((float)(int32_t)raw / 2147483647.0f, -1.0f) : (float)(int32_t)raw;
    default: return ps_bitsf(raw);
    }
}

/* An integer coordinate by the address mode; -1: outside (border). */
static inline int64_t ps_tex_wrap(int64_t i, int64_t n, uint32_t mode)
{
    if (i >= 0 && i < n)
        return i;
    switch (mode) {
    case 0: { int64_t r = i % n; return r < 0 ? r + n : r; }
    case 2: { int64_t p = 2 * n, r = i % p; if (r < 0) r += p; return r < n ? r : p - 1 - r; }
    case 3: return -1;
    default: return i < 0 ? 0 : n - 1;
    }
}

/* sRGB to linear (IEC 61966-2-1), the conversion CUDA applies to an sRGB texture's colour
 * channels (not alpha) of 8-bit normalized reads, before filtering. */
static inline float ps_srgb_linear(float c)
{
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* The texel at integer coordinates after addressing, channel by channel, as floats. */
static inline void ps_texel4(const pyshim_image *img, int64_t x, int64_t y, int64_t z, float out[4])
{
    int64_t ix = ps_tex_wrap(x, (int64_t)img->width, img->address[0]);
    int64_t iy = img->dims > 1 ? ps_tex_wrap(y, (int64_t)img->height, img->address[1]) : 0;
    int64_t iz = img->dims > 2 ? ps_tex_wrap(z, (int64_t)img->depth, img->address[2]) : 0;
    if (ix < 0 || iy < 0 || iz < 0) {
        for (int c = 0; c < 4; c++)
            out[c] = img->border[c];
        return;
    }
    for (int c = 0; c < 4; c++)
        out[c] = c < (int)img->channels ? ps_texel_float(img, ps_texel_raw(img, ix, iy, iz, c))
                                        : (c == 3 ? 1.0f : 0.0f);
    if (img->srgb && img->read_float && img->format == 0x01)
        for (int c = 0; c < 3 && c < (int)img->channels; c++)
            out[c] = ps_srgb_linear(out[c]);
}

/* Wrap and mirror on normalized coordinates act on the coordinate (CUDA: only these modes
 * need normalized coordinates); the result is in texel units. */
static inline float ps_tex_coord(const pyshim_image *img, float u, uint64_t n, uint32_t mode)
{
    if (!img->normalized)
        return u;
    if (mode == 0)
        u = u - floorf(u);
    else if (mode == 2) {
        float f = u - 2.0f * floorf(u * 0.5f);
        u = f <= 1.0f ? f : 2.0f - f;
    }
    return u * (float)n;
}

static inline ps_v4 ps_tex_lod(uint64_t h, float x, float y, float z, float lod);

/* tex.{1d,2d,3d}: four channels, as floats (is_int: an integer read gives raw channels).
 * A mipmapped texture is sampled at level of detail 0 (tex.base; bias and clamps apply). */
static inline ps_v4 ps_tex(uint64_t h, float x, float y, float z)
{
    ps_v4 r = {{0, 0, 0, 0}};
    const pyshim_image *img = ps_image(h);
    if (img == NULL)
        return r;
    if (img->levels > 1)
        return ps_tex_lod(h, x, y, z, 0.0f);
    int dims = (int)img->dims;
    float fx = ps_tex_coord(img, x, img->width, img->address[0]);
    float fy = dims > 1 ? ps_tex_coord(img, y, img->height, img->address[1]) : 0.0f;
    float fz = dims > 2 ? ps_tex_coord(img, z, img->depth, img->address[2]) : 0.0f;
    bool floats = img->read_float || img->format == 0x10 || img->format == 0x20;
    if (!floats) {
        int64_t ix = ps_tex_wrap((int64_t)floorf(fx), (int64_t)img->width, img->address[0]);
        int64_t iy = dims > 1 ? ps_tex_wrap((int64_t)floorf(fy), (int64_t)img->height, img->address[1]) : 0;
        int64_t iz = dims > 2 ? ps_tex_wrap((int64_t)floorf(fz), (int64_t)img->depth, img->address[2]) : 0;
        for (int c = 0; c < 4 && c < (int)img->channels; c++)
            r.w[c] = ix < 0 || iy < 0 || iz < 0 ? ps_fbits(img->border[c]) : ps_texel_raw(img, ix, iy, iz, c);
        return r;
    }
    float acc[4] = {0, 0, 0, 0};
    if (img->filter == 0) {
        ps_texel4(img, (int64_t)floorf(fx), (int64_t)floorf(fy), (int64_t)floorf(fz), acc);
    } else {
        /* tex(x) = (1-a) T[i] + a T[i+1], i = floor(x - 0.5), a = frac(x - 0.5) in 1.8 fixed point */
        float bx = fx - 0.5f, by = fy - 0.5f, bz = fz - 0.5f;
        int64_t i0 = (int64_t)floorf(bx), j0 = (int64_t)floorf(by), k0 = (int64_t)floorf(bz);
        float a = rintf((bx - floorf(bx)) * 256.0f) / 256.0f;
        float b = dims > 1 ? rintf((by - floorf(by)) * 256.0f) / 256.0f : 0.0f;
        float g = dims > 2 ? rintf((bz - floorf(bz)) * 256.0f) / 256.0f : 0.0f;
        if (dims < 2) j0 = 0;
        if (dims < 3) k0 = 0;
        for (int dk = 0; dk <= (dims > 2); dk++)
            for (int dj = 0; dj <= (dims > 1); dj++)
                for (int di = 0; di <= 1; di++) {
                    float w = (di ? a : 1.0f - a) * (dims > 1 ? (dj ? b : 1.0f - b) : 1.0f) *
                              (dims > 2 ? (dk ? g : 1.0f - g) : 1.0f);
                    float t[4];
                    ps_texel4(img, i0 + di, j0 + dj, k0 + dk, t);
                    for (int c = 0; c < 4; c++)
                        acc[c] += w * t[c];
                }
    }
    for (int c = 0; c < 4; c++)
        r.w[c] = ps_fbits(acc[c]);
    return r;
}

/* tex.level: a mipmapped texture at level of detail lod + bias, clamped to the texture's
 * [min, max] and to its levels; point mipmap filtering takes the nearest level, linear
 * blends the two around it with the fraction in 1.8 fixed point (as texel weights are).
 * Integer reads take the nearest level. A texture of one image ignores lod. */
static inline ps_v4 ps_tex_lod(uint64_t h, float x, float y, float z, float lod)
{
    const pyshim_image *img = ps_image(h);
    if (img == NULL || img->levels < 2)
        return ps_tex(h, x, y, z);
    float top = fminf(img->lod_max, (float)(img->levels - 1));
    float l = lod + img->lod_bias;
    l = l > top ? top : l;
    l = l > img->lod_min ? l : img->lod_min;   /* also NaN */
    l = l > 0.0f ? (l < (float)(img->levels - 1) ? l : (float)(img->levels - 1)) : 0.0f;
    if (img->mip_filter == 0) {
        int k = (int)floorf(l + 0.5f);
        k = k < (int)img->levels ? k : (int)img->levels - 1;
        return ps_tex((uint64_t)(uintptr_t)&img->level[k], x, y, z);
    }
    int k = (int)floorf(l);
    float f = rintf((l - (float)k) * 256.0f) / 256.0f;
    ps_v4 a = ps_tex((uint64_t)(uintptr_t)&img->level[k], x, y, z);
    if (f == 0.0f || k + 1 >= (int)img->levels)
        return a;
    ps_v4 b = ps_tex((uint64_t)(uintptr_t)&img->level[k + 1], x, y, z);
    for (int c = 0; c < 4; c++)
        a.w[c] = ps_fbits((1.0f - f) * ps_bitsf(a.w[c]) + f * ps_bitsf(b.w[c]));
    return a;
}

/* tex.grad: the level of detail of the larger of the two derivative vectors' lengths in
 * level-0 texels (normalized coordinates scaled by its extent), log2 of it. */
static inline ps_v4 ps_tex_grad(uint64_t h, int dims, float x, float y, float z, float dxx,
                                float dxy, float dxz, float dyx, float dyy, float dyz)
{
    const pyshim_image *img = ps_image(h);
    if (img == NULL || img->levels < 2)
        return ps_tex_lod(h, x, y, z, 0.0f);
    float sx = img->normalized ? (float)img->width : 1.0f;
    float sy = img->normalized ? (float)img->height : 1.0f;
    float sz = img->normalized ? (float)img->depth : 1.0f;
    float px = dxx * sx, py = dims > 1 ? dxy * sy : 0.0f, pz = dims > 2 ? dxz * sz : 0.0f;
    float qx = dyx * sx, qy = dims > 1 ? dyy * sy : 0.0f, qz = dims > 2 ? dyz * sz : 0.0f;
    float rho = fmaxf(sqrtf(px * px + py * py + pz * pz), sqrtf(qx * qx + qy * qy + qz * qz));
    return ps_tex_lod(h, x, y, z, rho > 0.0f ? log2f(rho) : -INFINITY);
}

/* tex with integer coordinates (tex1Dfetch and friends): no filtering, no normalization. */
static inline ps_v4 ps_tex_i(uint64_t h, int32_t x, int32_t y, int32_t z)
{
    ps_v4 r = {{0, 0, 0, 0}};
    const pyshim_image *img = ps_image(h);
    if (img == NULL)
        return r;
    bool floats = img->read_float || img->format == 0x10 || img->format == 0x20;
    float t[4];
    int64_t ix = ps_tex_wrap(x, (int64_t)img->width, 1);
    int64_t iy = img->dims > 1 ? ps_tex_wrap(y, (int64_t)img->height, 1) : 0;
    int64_t iz = img->dims > 2 ? ps_tex_wrap(z, (int64_t)img->depth, 1) : 0;
    if (floats) {
        ps_texel4(img, ix, iy, iz, t);
        for (int c = 0; c < 4; c++)
            r.w[c] = ps_fbits(t[c]);
    } else {
        for (int c = 0; c < (int)img->channels; c++)
            r.w[c] = ps_texel_raw(img, ix, iy, iz, c);
    }
    return r;
}

/* tld4.{r,g,b,a}.2d: channel c of the four texels bilinear filtering would use, in CUDA's
 * order (i0,j1) (i1,j1) (i1,j0) (i0,j0). */
static inline ps_v4 ps_tld4(uint64_t h, int c, float x, float y)
{
    ps_v4 r = {{0, 0, 0, 0}};
    const pyshim_image *img = ps_image(h);
    if (img == NULL)
        return r;
    float fx = ps_tex_coord(img, x, img->width, img->address[0]) - 0.5f;
    float fy = ps_tex_coord(img, y, img->height, img->address[1]) - 0.5f;
    int64_t i0 = (int64_t)floorf(fx), j0 = (int64_t)floorf(fy);
    const int64_t dx[4] = {0, 1, 1, 0}, dy[4] = {1, 1, 0, 0};
    for (int k = 0; k < 4; k++) {
        float t[4];
        ps_texel4(img, i0 + dx[k], j0 + dy[k], 0, t);
        r.w[k] = ps_fbits(t[c]);
    }
    return r;
}

/* suld.b / sust.b: x in bytes; out of range by the clamp/zero/trap mode (mode 0 trap,
 * 1 clamp, 2 zero). Returns the element's address, or NULL for a zero-mode miss. */
static inline char *ps_surf_at(uint64_t h, int mode, uint32_t bytes, int32_t xb, int32_t y, int32_t z)
{
    const pyshim_image *img = ps_image(h);
    if (img == NULL)
        __builtin_trap();
    int64_t w = (int64_t)(img->width * img->elem_bytes);
    int64_t x = xb, yy = img->dims > 1 ? y : 0, zz = img->dims > 2 ? z : 0;
    int64_t hh = (int64_t)img->height, dd = (int64_t)img->depth;
    bool out = x < 0 || x + bytes > w || yy < 0 || yy >= hh || zz < 0 || zz >= dd;
    if (out) {
        if (mode == 2)
            return NULL;
        if (mode == 0)
            __builtin_trap();
        x = x < 0 ? 0 : (x + bytes > w ? w - bytes : x);
        x -= x % bytes;
        yy = yy < 0 ? 0 : (yy >= hh ? hh - 1 : yy);
        zz = zz < 0 ? 0 : (zz >= dd ? dd - 1 : zz);
    }
    return img->data + zz * img->slice + yy * img->pitch + x;
}

/* suq / txq: width, height, depth of the image (0 for a handle that is not one). */
static inline uint32_t ps_image_query(uint64_t h, int what)
{
    const pyshim_image *img = ps_image(h);
    if (img == NULL)
        return 0;
    return what == 0 ? (uint32_t)img->width : what == 1 ? (uint32_t)img->height
                                                          : (uint32_t)img->depth;
}

/* tex.a1d / tex.a2d: a layer of a layered array (rows of a 1D one, slices of a 2D one),
 * sampled as one image; the layer index is clamped into range. */
static inline ps_v4 ps_tex_layer(uint64_t h, int dims, int32_t layer, float x, float y)
{
    const pyshim_image *img = ps_image(h);
    ps_v4 r = {{0, 0, 0, 0}};
    if (img == NULL)
        return r;
    pyshim_image one = *img;
    int64_t n = dims == 1 ? (int64_t)img->height : (int64_t)img->depth;
    int64_t l = layer < 0 ? 0 : (layer >= n ? n - 1 : layer);
    one.data = img->data + l * (dims == 1 ? img->pitch : img->slice);
    one.dims = (uint32_t)dims;
    if (dims == 1)
        one.height = 1;
    one.depth = 1;
    return ps_tex((uint64_t)(uintptr_t)&one, x, y, 0.0f);
}

/* tex.cube: the face and face coordinates CUDA's cubemap table gives a direction, then
 * that face sampled at normalized coordinates. */
static inline ps_v4 ps_tex_cube(uint64_t h, float x, float y, float z)
{
    const pyshim_image *img = ps_image(h);
    ps_v4 r = {{0, 0, 0, 0}};
    if (img == NULL)
        return r;
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), ma, sc, tc;
    int face;
    if (ax >= ay && ax >= az) {
        face = x >= 0 ? 0 : 1; ma = ax; sc = x >= 0 ? -z : z; tc = -y;
    } else if (ay >= az) {
        face = y >= 0 ? 2 : 3; ma = ay; sc = x; tc = y >= 0 ? z : -z;
    } else {
        face = z >= 0 ? 4 : 5; ma = az; sc = z >= 0 ? x : -x; tc = -y;
    }
    float s = ma > 0 ? (sc / ma + 1.0f) * 0.5f : 0.5f, t = ma > 0 ? (tc / ma + 1.0f) * 0.5f : 0.5f;
    pyshim_image one = *img;
    one.data = img->data + (int64_t)face * img->slice;
    one.dims = 2;
    one.depth = 1;
    one.normalized = 1;
    one.address[0] = one.address[1] = 1;
    return ps_tex((uint64_t)(uintptr_t)&one, s, t, 0.0f);
}

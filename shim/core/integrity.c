/*
 * The INTEGRITY_CHECK export table's hash (notes/cuda-driver-contract.md,
 * notes/integrity-key.txt): HMAC over MD2 (RFC 1319) with a key folded out of a 64-byte
 * table. The primitives only: integrity_check.c builds the message. Standalone (no HIP,
 * no other core file) so tests can compile it alone.
 */
#include <string.h>

#include "internal.h"

/* RFC 1319's permutation of 0..255 built from the digits of pi. */
static const uint8_t md2_s[256] = {
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19,
    98, 167, 5, 243, 192, 199, 115, 140, 152, 147, 43, 217, 188, 76, 130, 202,
    30, 155, 87, 60, 253, 212, 224, 22, 103, 66, 111, 24, 138, 23, 229, 18,
    190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47, 238, 122,
    169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33,
    128, 127, 93, 154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3,
    255, 25, 48, 179, 72, 165, 181, 209, 215, 94, 146, 42, 172, 86, 170, 198,
    79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4, 241,
    69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2,
    27, 96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15,
    85, 71, 163, 35, 221, 81, 175, 58, 195, 92, 249, 206, 186, 197, 234, 38,
    44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205, 244, 65, 129, 77, 82,
    106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
    120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57,
    242, 239, 183, 14, 102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10,
    49, 68, 80, 180, 143, 237, 31, 26, 219, 153, 141, 51, 159, 17, 131, 20,
};

struct md2_state {
    uint8_t x[48];
    uint8_t checksum[16];
    uint8_t last; /* L of the checksum recurrence */
};

static void md2_block(struct md2_state *st, const uint8_t block[16])
{
    for (int j = 0; j < 16; j++) {
        st->checksum[j] ^= md2_s[block[j] ^ st->last];
        st->last = st->checksum[j];
    }
    for (int j = 0; j < 16; j++) {
        st->x[16 + j] = block[j];
        st->x[32 + j] = (uint8_t)(st->x[16 + j] ^ st->x[j]);
    }
    unsigned t = 0;
    for (unsigned round = 0; round < 18; round++) {
        for (int k = 0; k < 48; k++) {
            st->x[k] ^= md2_s[t];
            t = st->x[k];
        }
        t = (t + round) & 0xff;
    }
}

/* Digest of the concatenation of two buffers (HMAC hashes pad || message). */
static void md2_two(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
                    uint8_t out[16])
{
    struct md2_state st;
    memset(&st, 0, sizeof st);
    uint8_t block[16];
    size_t fill = 0;
    const uint8_t *parts[2] = {a, b};
    size_t lens[2] = {alen, blen};
    for (int p = 0; p < 2; p++) {
        for (size_t i = 0; i < lens[p]; i++) {
            block[fill++] = parts[p][i];
            if (fill == 16) {
                md2_block(&st, block);
                fill = 0;
            }
        }
    }
    uint8_t pad = (uint8_t)(16 - fill);
    while (fill < 16)
        block[fill++] = pad;
    md2_block(&st, block);
    uint8_t checksum[16];
    memcpy(checksum, st.checksum, 16);
    md2_block(&st, checksum);
    memcpy(out, st.x, 16);
}

void pyshim_md2(const uint8_t *data, size_t len, uint8_t out[16])
{
    md2_two(data, len, NULL, 0, out);
}

static const uint8_t key_table[64] = {
    0x6b, 0xcf, 0x32, 0x0f, 0xa4, 0x49, 0xd3, 0xa8, 0x33, 0xf8, 0xd0, 0x8e, 0x12, 0x4e, 0xa8, 0x00,
    0xeb, 0x94, 0x2c, 0x8f, 0x34, 0x49, 0xde, 0xf6, 0xbf, 0x29, 0x91, 0x20, 0xc7, 0x65, 0xf6, 0xba,
    0x78, 0x5c, 0x66, 0x27, 0xa7, 0xb2, 0x73, 0x92, 0xdb, 0x22, 0x1e, 0x20, 0x14, 0x6f, 0x87, 0xff,
    0xa5, 0xc3, 0x18, 0x01, 0x66, 0x64, 0xa5, 0x0e, 0x70, 0x51, 0x52, 0xa7, 0x80, 0x4b, 0xdf, 0xef,
};

void pyshim_integrity_key(uint8_t key[16])
{
    unsigned i = 13, t = 0x8b;
    do {
        unsigned p1 = key_table[i + 16] ^ key_table[i + 32] ^ key_table[i + 48];
        unsigned p2 = t ^ key_table[i] ^ key_table[i + 16];
        t = ~(p1 ^ t) & 0xff;
        key[(p2 >> 4) & 15] = (uint8_t)p1;
        i = p2 & 15;
    } while (i != 13);
}

void pyshim_integrity_hmac(const uint8_t *msg, size_t len, uint8_t out[16])
{
    uint8_t key[16], pad[16], inner[16];
    pyshim_integrity_key(key);
    for (int i = 0; i < 16; i++)
        pad[i] = key[i] ^ 0x36;
    md2_two(pad, 16, msg, len, inner);
    for (int i = 0; i < 16; i++)
        pad[i] = key[i] ^ 0x5c;
    md2_two(pad, 16, inner, 16, out);
}

/*
 * The integrity-check primitives against the published vectors: MD2 (RFC 1319) and the
 * HMAC over the test-vector message from notes/integrity-key.txt.
 * Build: cc test_integrity.c shim/core/integrity.c (+ the core's include flags).
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static int failures;

static void expect_bytes(const char *what, const uint8_t *got, const uint8_t *want)
{
    if (memcmp(got, want, 16) == 0) {
        printf("ok %s\n", what);
        return;
    }
    failures++;
    printf("FAIL %s: got ", what);
    for (int i = 0; i < 16; i++)
        printf("%02x", got[i]);
    printf(" want ");
    for (int i = 0; i < 16; i++)
        printf("%02x", want[i]);
    printf("\n");
}

static uint8_t *put(uint8_t *p, const void *v, size_t n)
{
    memcpy(p, v, n);
    return p + n;
}

int main(void)
{
    uint8_t out[16];
    static const uint8_t md2_abc[16] = {0xda, 0x85, 0x3b, 0x0d, 0x3f, 0x88, 0xd9, 0x9b,
                                        0x30, 0x28, 0x3a, 0x69, 0xe6, 0xde, 0xd6, 0xbb};
    pyshim_md2((const uint8_t *)"abc", 3, out);
    expect_bytes("md2(abc)", out, md2_abc);

    /* RFC 1319's other vectors: "" and a 16-byte boundary message */
    static const uint8_t md2_empty[16] = {0x83, 0x50, 0xe5, 0xa3, 0xe2, 0x4c, 0x15, 0x3d,
                                          0xf2, 0x27, 0x5c, 0x9f, 0x80, 0x69, 0x27, 0x73};
    pyshim_md2((const uint8_t *)"", 0, out);
    expect_bytes("md2(empty)", out, md2_empty);

    uint8_t msg[48 + 28];
    uint8_t *p = msg;
    uint32_t u32;
    uint64_t u64;
    u32 = 12020; p = put(p, &u32, 4);               /* driver_version */
    u32 = 0x2B4A; p = put(p, &u32, 4);              /* version */
    u32 = 0x4D08; p = put(p, &u32, 4);              /* pid */
    u32 = 0x2B78; p = put(p, &u32, 4);              /* tid */
    u64 = 0x00007FF8C80717F0ull; p = put(p, &u64, 8); /* cudart interface table */
    u64 = 0x00007FF8C825E4B0ull; p = put(p, &u64, 8); /* integrity table */
    u64 = 0x00007FF8C7DD0AD0ull; p = put(p, &u64, 8); /* slot 1 function */
    u64 = 0x64A365EEull; p = put(p, &u64, 8);        /* unix time */
    static const uint8_t uuid[16] = {0x67, 0x22, 0xCB, 0xCF, 0xC6, 0x61, 0xF2, 0x92,
                                     0x74, 0xD6, 0xED, 0x23, 0x2A, 0x32, 0x13, 0x1C};
    p = put(p, uuid, 16);
    u32 = 0; p = put(p, &u32, 4); /* pci domain */
    u32 = 4; p = put(p, &u32, 4); /* pci bus */
    u32 = 0; p = put(p, &u32, 4); /* pci device */
    static const uint8_t want[16] = {0x7A, 0x70, 0x14, 0xF2, 0x28, 0x46, 0xC3, 0xA7,
                                     0x84, 0xCD, 0xBF, 0x42, 0x33, 0x31, 0xF1, 0xEA};
    pyshim_integrity_hmac(msg, (size_t)(p - msg), out);
    expect_bytes("hmac(test vector)", out, want);

    /* one changed message byte must change the hash */
    msg[20] ^= 1;
    pyshim_integrity_hmac(msg, (size_t)(p - msg), out);
    if (memcmp(out, want, 16) == 0) {
        failures++;
        printf("FAIL hmac ignores the message\n");
    } else {
        printf("ok hmac depends on the message\n");
    }
    return failures != 0;
}

/*
 * INTEGRITY_CHECK export table, slot 1 (notes/cuda-driver-contract.md): cudart compares
 * the value with its own computation; a wrong one makes every later runtime call fail
 * with cudaErrorSoftwareValidityNotEstablished. The message covers the process, the
 * calling thread, our table addresses (so they must be stable) and every device.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static void put32(uint8_t **p, uint32_t v)
{
    memcpy(*p, &v, 4); /* x86-64 and aarch64 Linux are little-endian, as the message is */
    *p += 4;
}

static void put64(uint8_t **p, uint64_t v)
{
    memcpy(*p, &v, 8);
    *p += 8;
}

#define MAX_HASHED_DEVICES 64

/* INTEGRITY_CHECK slot 1. */
CUresult pyshim_integrity_slot1(uint32_t version, uint64_t unix_time, uint8_t out[16]);
CUresult pyshim_integrity_slot1(uint32_t version, uint64_t unix_time, uint8_t out[16])
{
    static const uint8_t fixed[16] = {0x5c, 0x67, 0xcb, 0x03, 0x1c, 0x18, 0x41, 0x33,
                                      0xe8, 0xd1, 0x4c, 0x1f, 0xaa, 0x83, 0xd3, 0x8e};
    if (out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (version % 10 == 0 || version % 10 == 1) {
        memcpy(out, fixed, 16);
        if (version % 10 == 1)
            out[7] = 0x18;
        return CUDA_SUCCESS;
    }
    uint8_t msg[48 + MAX_HASHED_DEVICES * 28];
    uint8_t *p = msg;
    put32(&p, PYSHIM_DRIVER_VERSION);
    put32(&p, version);
    put32(&p, (uint32_t)getpid());
    put32(&p, (uint32_t)pthread_self());
    put64(&p, (uint64_t)(uintptr_t)pyshim_export_table_cudart_interface());
    put64(&p, (uint64_t)(uintptr_t)pyshim_export_table_integrity());
    put64(&p, (uint64_t)(uintptr_t)&pyshim_integrity_slot1);
    put64(&p, unix_time);
    int n = pyshim_device_count();
    for (int dev = 0; dev < n && dev < MAX_HASHED_DEVICES; dev++) {
        CUuuid uuid;
        int domain = 0, bus = 0, device = 0;
        if (cuDeviceGetUuid_v2(&uuid, dev) != CUDA_SUCCESS)
            memset(&uuid, 0, sizeof uuid);
        pyshim_device_attribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev);
        pyshim_device_attribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev);
        pyshim_device_attribute(&device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev);
        memcpy(p, uuid.bytes, 16);
        p += 16;
        put32(&p, (uint32_t)domain);
        put32(&p, (uint32_t)bus);
        put32(&p, (uint32_t)device);
    }
    pyshim_integrity_hmac(msg, (size_t)(p - msg), out);
    return CUDA_SUCCESS;
}

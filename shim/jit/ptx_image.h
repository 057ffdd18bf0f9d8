/* An image pyshim loads, made from PTX: what the JIT wrappers hand back where a program
 * asked NVIDIA's tools for a cubin. */
#ifndef PYSHIM_PTX_IMAGE_H
#define PYSHIM_PTX_IMAGE_H

#include <stddef.h>
#include <stdint.h>

/* A cubin-shaped ELF (EM_CUDA, e_flags naming sm) whose .nv_fatbin section holds a fat
 * binary container with the PTX as its one entry. Returns a malloc'd buffer (NULL when out
 * of memory) and its size in *size. */
uint8_t *pyshim_ptx_elf(const char *ptx, size_t len, unsigned sm, size_t *size);

/* The SM number of an arch option value: "sm_86", "compute_90a", "sm_100f" -> 86, 90, 100;
 * 0 when it names none. */
unsigned pyshim_arch_number(const char *arch);

#endif

/*
 * The C in shim/common is compiled into several of pyshim's libraries (libcuda.so.1,
 * libcudart.so.N, libcublas, libcusolver), which one program may load together. Its
 * functions are hidden: each library calls its own copy, none exports them, and two
 * libraries' copies never bind to each other.
 */
#ifndef PYSHIM_COMMON_VISIBILITY_H
#define PYSHIM_COMMON_VISIBILITY_H

#define PYSHIM_COMMON_HIDDEN __attribute__((visibility("hidden")))

#endif

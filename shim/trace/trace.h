/*
 * libpyshim_trace.so: an LD_PRELOAD interposer that logs every CUDA driver and runtime call
 * (`pyshim run --trace`). Nothing here is linked into the shim's own libraries, so a run
 * without --trace pays nothing. The per-symbol wrappers are generated from the tables
 * (pyshim/codegen/trace.py); this header is what they and the hand-written parts share.
 */
#ifndef PYSHIM_TRACE_H
#define PYSHIM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define PT_API __attribute__((visibility("default")))
#define PT_HIDDEN __attribute__((visibility("hidden")))

/* One trace line, built on the stack after the call and written in one piece. */
#define PT_LINE_MAX 2048
struct pt_line {
    char text[PT_LINE_MAX];
    size_t len;
    int args; /* arguments written so far: the next one gets ", " */
};

PT_HIDDEN void pt_begin(struct pt_line *L, const char *fn);
PT_HIDDEN void pt_name(struct pt_line *L, const char *arg);
PT_HIDDEN void pt_close(struct pt_line *L);
PT_HIDDEN void pt_v_text(struct pt_line *L, const char *s);
PT_HIDDEN void pt_v_int(struct pt_line *L, long long v);
PT_HIDDEN void pt_v_uint(struct pt_line *L, unsigned long long v);
PT_HIDDEN void pt_v_hex(struct pt_line *L, unsigned long long v);
PT_HIDDEN void pt_v_float(struct pt_line *L, double v);
PT_HIDDEN void pt_v_enum(struct pt_line *L, long long v, const char *name);
PT_HIDDEN void pt_v_cstr(struct pt_line *L, const char *s);
PT_HIDDEN void pt_v_fmt(struct pt_line *L, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends the duration and writes the line (a lock per line). */
PT_HIDDEN void pt_finish(struct pt_line *L, uint64_t ns);
/* Writes a free-form note line: "[tid] # text". */
PT_HIDDEN void pt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

PT_HIDDEN uint64_t pt_now(void);

/* Counts a call (and a failure, when status != 0) for $PYSHIM_REPORT: the tracer adds
 * `call <name> <count>` and `error <name> <status name or code>` lines to the run report at exit. */
PT_HIDDEN void pt_tally(unsigned long *calls, const char *symbol, long long status,
                        const char *status_name);

/* The real function behind a wrapper: *slot if already known (set by an earlier call or by
 * the cuGetProcAddress wrapper), else dlsym(RTLD_NEXT, symbol), remembered in *slot. */
PT_HIDDEN void *pt_resolve(void **slot, const char *symbol);
/* dlsym of the library after this one, bypassing our own dlsym wrapper. */
PT_HIDDEN void *pt_dlsym_next(const char *symbol);
/* Hands a real function pointer to its wrapper's slot (first writer wins). A pointer to
 * the wrapper itself is refused: a library whose own tables name its exported symbols
 * gets our wrappers from the dynamic loader, and a wrapper must never call itself. */
PT_HIDDEN void pt_set_real(void **slot, void *fn, void *wrapper);

/* Generated symbol maps (sorted by symbol): what dlsym and cuGetProcAddress redirect. */
struct pt_symbol {
    const char *symbol;
    void *wrapper;
    void **real;
    unsigned long *calls;
};
extern const struct pt_symbol pt_symbols_driver[];
extern const size_t pt_symbols_driver_count;
extern const struct pt_symbol pt_symbols_runtime[];
extern const size_t pt_symbols_runtime_count;
PT_HIDDEN const struct pt_symbol *pt_find_symbol(const char *symbol);

/* cuGetProcAddress rows, sorted by name, variant (0 default, 1 ptds, 2 ptsz), version. */
struct pt_proc {
    const char *name;
    int version;
    int variant;
    const char *symbol;
    void *wrapper;
    void **real;
};
extern const struct pt_proc pt_proc_table[];
extern const size_t pt_proc_table_count;

#endif

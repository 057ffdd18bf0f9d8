/* pyshim PTX prelude for GPU targets without a host-side vprintf: device printf appends a
 * record to the module global `__pyshim_printf` that the runtime drains after a launch
 * (hipModuleGetGlobal + copy + pyshim.ptx.printf_buffer.decode, then zero the offset).
 *
 * Layout: bytes [0, 8) the write offset (uint64; records start at byte 64), [8, 16) the
 * capacity (0 = PS_PRINTF_BYTES). A record (8-byte aligned):
 *   uint32 total bytes, uint32 format bytes (with its NUL), uint32 argument bytes,
 *   uint32 string bytes; the format; the packed argument buffer exactly as vprintf got it;
 *   then the text of every %s argument, NUL-terminated, in order.
 * A record that does not fit is dropped (the offset still grows, so the reader can tell). */
#ifndef PS_PRINTF_BYTES
#define PS_PRINTF_BYTES (1u << 20)
#endif

PS_FN uint32_t ps_pf_strlen(const char *s, uint32_t cap) {
    uint32_t n = 0;
    while (n < cap && s[n]) n++;
    return n;
}

/* Walks a printf format over its packed arguments (each aligned to its size: 8 for
 * floating point, pointers, %s and l/z/j/t lengths, else 4). Returns the bytes of the %s
 * strings (with NULs), copying them to `out` unless it is NULL; sets *arg_bytes. */
PS_FN uint32_t ps_pf_walk(const char *fmt, const uint8_t *args, uint8_t *out,
                          uint32_t *arg_bytes) {
    uint32_t pos = 0, strs = 0;
    for (uint32_t i = 0; fmt[i]; i++) {
        if (fmt[i] != '%') continue;
        i++;
        if (fmt[i] == '%') continue;
        int lng = 0;
        char c = fmt[i];
        while (c && ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == ' ' || c == '#' ||
                     c == '.' || c == 'l' || c == 'h' || c == 'z' || c == 'j' || c == 't')) {
            if (c == 'l' || c == 'z' || c == 'j' || c == 't') lng = 1;
            c = fmt[++i];
        }
        if (!c) break;
        int wide = lng || c == 'f' || c == 'F' || c == 'e' || c == 'E' || c == 'g' ||
                   c == 'G' || c == 'a' || c == 'A' || c == 's' || c == 'p';
        uint32_t size = wide ? 8u : 4u;
        pos = (pos + size - 1) & ~(size - 1);
        if (c == 's') {
            uint64_t p;
            __builtin_memcpy(&p, args + pos, 8);
            const char *str = p ? (const char *)(uintptr_t)p : "(null)";
            uint32_t n = ps_pf_strlen(str, 1024);
            if (out) {
                for (uint32_t k = 0; k < n; k++) out[strs + k] = (uint8_t)str[k];
                out[strs + n] = 0;
            }
            strs += n + 1;
        }
        pos += size;
    }
    *arg_bytes = pos;
    return strs;
}

PS_FN int ps_printf_record(uint8_t *buf, uint64_t fmt_addr, uint64_t args_addr) {
    const char *fmt = (const char *)(uintptr_t)fmt_addr;
    const uint8_t *args = (const uint8_t *)(uintptr_t)args_addr;
    uint64_t cap;
    __builtin_memcpy(&cap, buf + 8, 8);
    if (!cap) cap = PS_PRINTF_BYTES;
    uint32_t fmt_bytes = ps_pf_strlen(fmt, 4096) + 1, arg_bytes = 0, str_bytes = 0;
    if (args) str_bytes = ps_pf_walk(fmt, args, NULL, &arg_bytes);
    uint32_t total = (16u + fmt_bytes + arg_bytes + str_bytes + 7u) & ~7u;
    uint64_t at = PS_AFETCH_ADD((uint64_t *)buf, (uint64_t)total) + 64u;
    if (at + total > cap) return -1;
    uint8_t *r = buf + at;
    uint32_t head[4] = {total, fmt_bytes, arg_bytes, str_bytes};
    __builtin_memcpy(r, head, 16);
    for (uint32_t i = 0; i + 1 < fmt_bytes; i++) r[16 + i] = (uint8_t)fmt[i];
    r[16 + fmt_bytes - 1] = 0;
    for (uint32_t i = 0; i < arg_bytes; i++) r[16 + fmt_bytes + i] = args[i];
    if (str_bytes) ps_pf_walk(fmt, args, r + 16 + fmt_bytes + arg_bytes, &arg_bytes);
    return (int)arg_bytes;
}

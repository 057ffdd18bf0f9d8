int pyshim_embed_translate(const void *image, size_t size, const char *target, char *out, size_t out_len, int *status);

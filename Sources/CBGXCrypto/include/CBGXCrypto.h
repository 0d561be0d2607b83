#ifndef CBGXCRYPTO_H
#define CBGXCRYPTO_H
#include <stddef.h>

/// A SHA-256 digest from the system's libcrypto, loaded the first time one is
/// begun. NULL when no libcrypto could be loaded (or memory ran out).
void *bgx_sha256_begin(void);
void bgx_sha256_update(void *digest, const void *bytes, size_t count);
/// Writes the 32 bytes of the digest and frees it.
void bgx_sha256_end(void *digest, unsigned char out[32]);
/// Frees a digest that was not ended.
void bgx_sha256_free(void *digest);
/// The libcrypto names tried, and why the last one failed, when none loaded.
const char *bgx_crypto_failure(void);

#endif

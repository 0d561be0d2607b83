// SHA-256 from the system's libcrypto, opened with dlopen when the first
// digest begins rather than linked: the daemon maps libcrypto (about 1.4 MB
// resident once OpenSSL has initialised) only when a download is verified,
// and building needs no OpenSSL headers. Only EVP's digest calls are used;
// their C signatures are the same in OpenSSL 1.1 and 3 and in LibreSSL.
#include "CBGXCrypto.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

typedef struct evp_md_ctx EVP_MD_CTX;
typedef struct evp_md EVP_MD;

static struct {
    EVP_MD_CTX *(*ctx_new)(void);
    void (*ctx_free)(EVP_MD_CTX *);
    const EVP_MD *(*sha256)(void);
    int (*init)(EVP_MD_CTX *, const EVP_MD *, void *);
    int (*update)(EVP_MD_CTX *, const void *, size_t);
    int (*final)(EVP_MD_CTX *, unsigned char *, unsigned int *);
} api;
static int loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    static const char *const names[] = {"libcrypto.so.3", "libcrypto.so", "libcrypto.so.1.1"};
    const char *why = "";
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        void *library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!library) { why = dlerror(); continue; }
        api.ctx_new = (EVP_MD_CTX * (*)(void)) dlsym(library, "EVP_MD_CTX_new");
        api.ctx_free = (void (*)(EVP_MD_CTX *))dlsym(library, "EVP_MD_CTX_free");
        api.sha256 = (const EVP_MD *(*)(void))dlsym(library, "EVP_sha256");
        api.init = (int (*)(EVP_MD_CTX *, const EVP_MD *, void *))dlsym(library, "EVP_DigestInit_ex");
        api.update = (int (*)(EVP_MD_CTX *, const void *, size_t))dlsym(library, "EVP_DigestUpdate");
        api.final = (int (*)(EVP_MD_CTX *, unsigned char *, unsigned int *))dlsym(library, "EVP_DigestFinal_ex");
        if (api.ctx_new && api.ctx_free && api.sha256 && api.init && api.update && api.final) {
            loaded = 1;
            return;
        }
        why = "it lacks EVP_MD_CTX_new or another EVP digest call";
        dlclose(library);
    }
    snprintf(failure, sizeof failure, "no libcrypto could be loaded (tried libcrypto.so.3, libcrypto.so, libcrypto.so.1.1): %s", why ? why : "");
}

void *bgx_sha256_begin(void) {
    pthread_once(&once, load);
    if (!loaded) return NULL;
    EVP_MD_CTX *context = api.ctx_new();
    if (!context) return NULL;
    if (api.init(context, api.sha256(), NULL) != 1) {
        api.ctx_free(context);
        return NULL;
    }
    return context;
}

void bgx_sha256_update(void *digest, const void *bytes, size_t count) { api.update(digest, bytes, count); }

void bgx_sha256_end(void *digest, unsigned char out[32]) {
    unsigned int length = 0;
    api.final(digest, out, &length);
    api.ctx_free(digest);
}

void bgx_sha256_free(void *digest) { api.ctx_free(digest); }

const char *bgx_crypto_failure(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}

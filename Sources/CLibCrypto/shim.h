// The system's libcrypto (OpenSSL 3 or LibreSSL): only its EVP digests are used.
#include <openssl/evp.h>

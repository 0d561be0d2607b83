#include <malloc.h>

#include "CBGXLive.h"

void bgx_release_free_memory(void) {
    malloc_trim(0);
}

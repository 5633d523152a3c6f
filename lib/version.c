/* version.c - libpathgate's own translation unit: the shared library is the
 * internal convenience library plus this file, exported through
 * libpathgate.sym. */
#include "config.h"

#include "pathgate.h"

/* Referenced so the shared object has a C translation unit of its own. */
extern const char pg_library_version[];
const char pg_library_version[] __attribute__((visibility("hidden"))) = PACKAGE_VERSION;

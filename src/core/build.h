/* build: the identity of this binary, computed when it was built.
 *
 * cmake/build_info.cmake runs at every build (not only when CMake configures)
 * and regenerates build_info.c when something changed: the git revision
 * (`git describe --always --dirty --tags`), whether the tree was dirty, a
 * SHA-256 over every file under src/ and cmake/ plus CMakeLists.txt (path and
 * content), and the configuration (build type, compiler, flags, library
 * versions).  `id` is the first 16 hex digits of SHA-256(sources, config): two
 * binaries with the same id were built from the same code the same way, so
 * they give the same results.  Sweeps store it per job and refuse to resume
 * with another build unless told to (docs/running-sweeps.md).
 *
 * Everything is static, read-only data owned by the binary.
 */
#ifndef RCSIM_CORE_BUILD_H
#define RCSIM_CORE_BUILD_H

typedef struct rc_build_info {
    const char *id;             /* 16 hex digits */
    const char *revision;       /* git describe, or "unknown" outside a git checkout */
    int dirty;                  /* 1 uncommitted changes, 0 clean, -1 unknown (no git) */
    const char *sources_sha256; /* 64 hex digits */
    int source_files;           /* files hashed */
    const char *config;         /* "RelWithDebInfo; GNU 12.2.0; ..." */
} rc_build_info;

const rc_build_info *rc_build(void);

#endif

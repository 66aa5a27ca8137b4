/* core/log.h's allocation helpers: large blocks keep their contents across
 * growth and ask the kernel for huge pages (core/log.c, advise_huge). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

/* The VmFlags of the mapping that holds address p ("" if not found). */
static void flags_of(const void *p, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/self/smaps", "r");
    if (f == NULL) return;
    char line[512];
    bool inside = false;
    while (fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
            continue;
        }
        if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            size_t len = strlen(line + 8);
            if (len >= cap) len = cap - 1;
            memcpy(out, line + 8, len);
            out[len] = '\0';
            break;
        }
    }
    fclose(f);
}

/* Whether this kernel gives huge pages to a region that asks (the mode is
 * "always" or "madvise", not "never"). */
static bool thp_available(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f == NULL) return false;
    char mode[128] = {0};
    bool ok = fgets(mode, sizeof mode, f) != NULL && strstr(mode, "[never]") == NULL;
    fclose(f);
    return ok;
}

Test(alloc, a_growing_block_keeps_its_contents)
{
    size_t n = 1u << 18; /* 1 MiB of uint32_t, doubled to 128 MiB */
    uint32_t *a = rc_xmalloc(n * sizeof *a);
    for (size_t i = 0; i < n; i++) a[i] = (uint32_t)(i * 2654435761u);
    while (n < (32u << 20)) {
        a = rc_xrealloc(a, 2 * n * sizeof *a);
        for (size_t i = n; i < 2 * n; i++) a[i] = (uint32_t)(i * 2654435761u);
        n *= 2;
    }
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(a[i], (uint32_t)(i * 2654435761u), "element %zu changed", i);
    free(a);
}

Test(alloc, large_blocks_ask_for_huge_pages_and_small_ones_do_not)
{
    if (!thp_available()) cr_skip_test("transparent huge pages are off on this kernel");
    char flags[256];
    char *big = rc_xmalloc(16u << 20);
    memset(big, 1, 16u << 20);
    flags_of(big + (8u << 20), flags, sizeof flags);
    cr_assert(strstr(flags, " hg") != NULL, "a 16 MiB block's mapping has flags %s", flags);
    /* grown (and moved by realloc): the new place is advised too */
    big = rc_xrealloc(big, 64u << 20);
    flags_of(big + (40u << 20), flags, sizeof flags);
    cr_assert(strstr(flags, " hg") != NULL, "a 64 MiB block's mapping has flags %s", flags);
    cr_assert_eq(big[(16u << 20) - 1], 1, "realloc lost the contents");
    free(big);
    /* a zeroed block stays in small pages: it may be written sparsely */
    char *z = rc_xcalloc(16u << 20, 1);
    flags_of(z + (8u << 20), flags, sizeof flags);
    cr_assert(strstr(flags, " hg") == NULL, "a calloc'd block's mapping has flags %s", flags);
    free(z);
}

Test(alloc, aligned_blocks_are_aligned_and_large_ones_ask_for_huge_pages)
{
    /* a size that is not a multiple of the alignment is rounded up, not refused */
    char *small = rc_xaligned_alloc(128, 1000);
    cr_assert_eq((uintptr_t)small % 128, 0, "a 128-aligned block at %p", (void *)small);
    memset(small, 2, 1024);
    free(small);
    char *big = rc_xaligned_alloc(128, (24u << 20) + 72);
    cr_assert_eq((uintptr_t)big % 128, 0, "a 128-aligned block at %p", (void *)big);
    memset(big, 3, (24u << 20) + 128);
    if (thp_available()) {
        char flags[256];
        flags_of(big + (12u << 20), flags, sizeof flags);
        cr_assert(strstr(flags, " hg") != NULL, "a 24 MiB aligned block's mapping has flags %s",
                  flags);
    }
    free(big);
}

/*
 * cq.c — see cq.h. weida.h's prototype of weida_cq_post is hidden from the
 * library's own build (cgo declares exports itself, with uintptr_t for the
 * user pointer), so it is declared here: same registers, same ABI.
 */
#include <unistd.h>
#include "cq.h"

extern void weida_cq_post(void *user, int code, uint64_t a, uint64_t b);

weida_done_fn weida_bridge_cq_post(void) { return weida_cq_post; }

void weida_bridge_cq_raise(int fd) {
    uint64_t one = 1;
    ssize_t n = write(fd, &one, sizeof one);
    (void)n; /* cannot fail: the counter is raised only while it is 0 */
}

void weida_bridge_cq_clear(int fd) {
    uint64_t count;
    ssize_t n = read(fd, &count, sizeof count);
    (void)n; /* EAGAIN when already clear: nothing to do */
}

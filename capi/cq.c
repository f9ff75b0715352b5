/*
 * cq.c — see cq.h. weida.h's prototype of weida_cq_post is hidden from the
 * library's own build (cgo declares exports itself, with uintptr_t for the
 * user pointer), so it is declared here: same registers, same ABI.
 */
#include "cq.h"

extern void weida_cq_post(void *user, int code, uint64_t a, uint64_t b);

weida_done_fn weida_bridge_cq_post(void) { return weida_cq_post; }

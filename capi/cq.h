/*
 * cq.h — the C side of completion queues: the address of weida_cq_post
 * (a Go export, which Go code cannot name as a C function pointer itself).
 */
#ifndef WEIDA_CQ_H
#define WEIDA_CQ_H

#include "bridge.h"

/* Returns weida_cq_post as a weida_done_fn. */
WEIDA_HIDDEN weida_done_fn weida_bridge_cq_post(void);
/* Adds 1 to the eventfd fd. */
WEIDA_HIDDEN void weida_bridge_cq_raise(int fd);
/* Resets the eventfd fd to 0. */
WEIDA_HIDDEN void weida_bridge_cq_clear(int fd);

#endif

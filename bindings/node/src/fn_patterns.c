/*
 * fn_patterns.c — Req/Rep, Push/Pull and Pub/Sub (weida.h's sections of the
 * same names). Waiting calls return Promises; the rest return or throw.
 */
#include "addon.h"

#include <stdlib.h>
#include <string.h>

/* ---- Req/Rep ------------------------------------------------------------ */

NAPI_FN(RequesterConnect) { return call_with_text(env, info, "url", weida_requester_connect_async); }

NAPI_FN(RequesterRequest) { /* (h, payload, maxReplyBytes, self) -> Promise<Buffer> */
    napi_value argv[4];
    uint64_t h;
    const void *data;
    size_t len, max;
    if (!get_args(env, info, 4, argv) || !arg_handle(env, argv[0], &h) ||
        !arg_bytes(env, argv[1], "payload", &data, &len) ||
        !arg_ceiling(env, argv[2], "maxReplyBytes", &max)) {
        return rejected_by_exception(env);
    }
    START_OP(SHAPE_PAYLOAD, argv[3], weida_requester_request_async(h, data, len, max, on_done, p, &op));
}

NAPI_FN(RequesterOpen) { return call_plain(env, info, SHAPE_EXCHANGE, weida_requester_open_async); }
NAPI_FN(RequesterPeerCount) { return count_size(env, info, weida_requester_peer_count); }

NAPI_FN(ReplierAccept) {
    return call_with_ceiling(env, info, "maxBytes", SHAPE_REQUEST, weida_replier_accept_async);
}
NAPI_FN(ReplierPath) { return text_of(env, info, weida_replier_path); }

NAPI_FN(RequestReply) {
    return call_with_bytes(env, info, "payload", SHAPE_UNIT, weida_request_reply_async);
}
NAPI_FN(RequestRefuse) { return call_now(env, info, weida_request_refuse); }

/* ---- Push/Pull ---------------------------------------------------------- */

NAPI_FN(PusherConnect) { return call_with_text(env, info, "url", weida_pusher_connect_async); }
NAPI_FN(PusherSend) { /* (h, payload, self) -> Promise<undefined> */
    napi_value argv[3];
    uint64_t h;
    const void *data;
    size_t len;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &h) ||
        !arg_bytes(env, argv[1], "payload", &data, &len)) {
        return rejected_by_exception(env);
    }
    /* What needs no waiting is sent here and now: no library thread is
     * woken to run the send, nor the loop to hear that it finished. */
    int sent = 0;
    int rc = weida_pusher_try_send(h, data, len, &sent);
    if (rc != WEIDA_OK || sent) return settled_now(env, rc);
    START_OP(SHAPE_UNIT, argv[2], weida_pusher_send_async(h, data, len, on_done, p, &op));
}
NAPI_FN(PusherOpen) { return call_plain(env, info, SHAPE_OSTREAM, weida_pusher_open_async); }
NAPI_FN(PusherPeerCount) { return count_size(env, info, weida_pusher_peer_count); }
NAPI_FN(PusherDropped) { return count_u64(env, info, weida_pusher_dropped); }

NAPI_FN(PullerRecv) { return call_with_ceiling(env, info, "maxBytes", SHAPE_MSG, weida_puller_recv_async); }
NAPI_FN(PullerRecvStream) { return call_plain(env, info, SHAPE_ISTREAM, weida_puller_recv_stream_async); }
NAPI_FN(PullerPath) { return text_of(env, info, weida_puller_path); }

/* ---- Pub/Sub ------------------------------------------------------------ */

NAPI_FN(PublisherPublish) { /* (h, topic, payload) -> Number reached */
    napi_value argv[3];
    uint64_t h;
    const void *data;
    size_t len, reached = 0;
    char *topic;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &h) ||
        !arg_bytes(env, argv[2], "payload", &data, &len) || !arg_text(env, argv[1], "topic", &topic)) {
        return NULL;
    }
    int rc = weida_publisher_publish(h, topic, data, len, &reached);
    free(topic);
    return rc ? throw_code(env, rc) : js_number(env, (double)reached);
}

NAPI_FN(PublisherOpen) { /* (h, topic) -> fan-out handle */
    napi_value argv[2];
    uint64_t h, out;
    char *topic;
    if (!get_args(env, info, 2, argv) || !arg_handle(env, argv[0], &h) || !arg_text(env, argv[1], "topic", &topic)) {
        return NULL;
    }
    int rc = weida_publisher_open(h, topic, &out);
    free(topic);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

NAPI_FN(PublisherSubscriberCount) { return count_size(env, info, weida_publisher_subscriber_count); }
NAPI_FN(PublisherFilterCount) { return count_size(env, info, weida_publisher_filter_count); }
NAPI_FN(PublisherDropped) { return count_u64(env, info, weida_publisher_dropped); }
NAPI_FN(PublisherPath) { return text_of(env, info, weida_publisher_path); }

NAPI_FN(PublisherDroppedOn) { /* (h, topic) -> [total, budget, queue, noParked] or null */
    napi_value argv[2];
    uint64_t h;
    char *topic;
    if (!get_args(env, info, 2, argv) || !arg_handle(env, argv[0], &h) || !arg_text(env, argv[1], "topic", &topic)) {
        return NULL;
    }
    weida_drop_counts_t counts;
    memset(&counts, 0, sizeof counts);
    counts.size = sizeof counts;
    int found = 0;
    int rc = weida_publisher_dropped_on(h, topic, &counts, &found);
    free(topic);
    if (rc) return throw_code(env, rc);
    napi_value out;
    if (!found) {
        napi_get_null(env, &out);
        return out;
    }
    const uint64_t values[4] = {counts.total, counts.subscriber_budget, counts.subscriber_queue,
                                counts.no_parked_connection};
    napi_create_array_with_length(env, 4, &out);
    for (uint32_t i = 0; i < 4; i++) napi_set_element(env, out, i, js_number(env, (double)values[i]));
    return out;
}

NAPI_FN(SubscriberConnect) { return call_with_text(env, info, "url", weida_subscriber_connect_async); }
NAPI_FN(SubscriberSubscribe) { return call_with_text(env, info, "filter", weida_subscriber_subscribe_async); }
NAPI_FN(SubscriberUnsubscribe) {
    return call_with_text(env, info, "filter", weida_subscriber_unsubscribe_async);
}
NAPI_FN(SubscriberRecv) {
    return call_with_ceiling(env, info, "maxBytes", SHAPE_MSG, weida_subscriber_recv_async);
}
NAPI_FN(SubscriberRecvStream) {
    return call_plain(env, info, SHAPE_ISTREAM, weida_subscriber_recv_stream_async);
}
NAPI_FN(SubscriberGrant) { /* (h, limit, self) -> Promise<void> */
    napi_value argv[3];
    uint64_t h, limit;
    if (!get_args(env, info, 3, argv) || !arg_handle(env, argv[0], &h) || !arg_credit(env, argv[1], "limit", &limit)) {
        return rejected_by_exception(env);
    }
    START_OP(SHAPE_UNIT, argv[2], weida_subscriber_grant_async(h, limit, on_done, p, &op));
}
NAPI_FN(SubscriberGranted) { return count_u64(env, info, weida_subscriber_granted); }
NAPI_FN(SubscriberPeerCount) { return count_size(env, info, weida_subscriber_peer_count); }
NAPI_FN(SubscriberFilterCount) { return count_size(env, info, weida_subscriber_filter_count); }

const export_fn_t fn_patterns[] = {
    {"requesterConnect", RequesterConnect},
    {"requesterRequest", RequesterRequest},
    {"requesterOpen", RequesterOpen},
    {"requesterPeerCount", RequesterPeerCount},
    {"replierAccept", ReplierAccept},
    {"replierPath", ReplierPath},
    {"requestReply", RequestReply},
    {"requestRefuse", RequestRefuse},
    {"pusherConnect", PusherConnect},
    {"pusherSend", PusherSend},
    {"pusherOpen", PusherOpen},
    {"pusherPeerCount", PusherPeerCount},
    {"pusherDropped", PusherDropped},
    {"pullerRecv", PullerRecv},
    {"pullerRecvStream", PullerRecvStream},
    {"pullerPath", PullerPath},
    {"publisherPublish", PublisherPublish},
    {"publisherOpen", PublisherOpen},
    {"publisherSubscriberCount", PublisherSubscriberCount},
    {"publisherFilterCount", PublisherFilterCount},
    {"publisherDropped", PublisherDropped},
    {"publisherDroppedOn", PublisherDroppedOn},
    {"publisherPath", PublisherPath},
    {"subscriberConnect", SubscriberConnect},
    {"subscriberSubscribe", SubscriberSubscribe},
    {"subscriberUnsubscribe", SubscriberUnsubscribe},
    {"subscriberRecv", SubscriberRecv},
    {"subscriberRecvStream", SubscriberRecvStream},
    {"subscriberGrant", SubscriberGrant},
    {"subscriberGranted", SubscriberGranted},
    {"subscriberPeerCount", SubscriberPeerCount},
    {"subscriberFilterCount", SubscriberFilterCount},
    {NULL, NULL},
};

/*
 * fn_local.c — local transports (weida_bind_inproc, weida_bind_unix) and
 * connection statistics (weida_<role>_connection_stats).
 *
 * Statistics come out flat, one object per connected URL with the C
 * struct's fields in camelCase and times in seconds; lib/stats.js shapes
 * them into the nested, frozen values of the JavaScript surface.
 */
#include "addon.h"

#include <stdlib.h>

/* (rt, name) -> handle, for the binds that take one text argument. */
static napi_value bind_named(napi_env env, napi_callback_info info, const char *what,
                             int (*bind)(uint64_t, const char *, uint64_t *)) {
    napi_value argv[2];
    uint64_t rt;
    char *name;
    if (!get_args(env, info, 2, argv) || !arg_handle(env, argv[0], &rt) || !arg_text(env, argv[1], what, &name)) {
        return NULL;
    }
    uint64_t out;
    int rc = bind(rt, name, &out);
    free(name);
    return rc ? throw_code(env, rc) : js_handle(env, out);
}

NAPI_FN(BindInproc) { return bind_named(env, info, "bus", weida_bind_inproc); } /* (rt, bus) */
NAPI_FN(BindUnix) { return bind_named(env, info, "path", weida_bind_unix); }    /* (rt, path) */

typedef int (*stats_fn)(uint64_t, size_t, weida_connection_stats_t *, char *, size_t, size_t *);

/* The peer's path report as flat properties remoteAge and remoteRtt ..
 * remoteRxBytes, in record-key order: a figure whose WEIDA_REMOTE_ bit is
 * clear is null (the peer did not state it), never 0. */
static void remote_figures(napi_env env, napi_value obj, const weida_connection_stats_t *s) {
    static const char *const names[] = {"remoteRtt", "remoteMinRtt", "remoteCongestionWindow",
                                        "remoteCongestionEvents", "remoteLostPackets", "remoteLostBytes",
                                        "remoteSentPackets", "remoteCurrentMtu", "remoteTxDatagrams",
                                        "remoteTxBytes", "remoteRxDatagrams", "remoteRxBytes"};
    const double values[] = {s->remote_rtt, s->remote_min_rtt, (double)s->remote_congestion_window,
                             (double)s->remote_congestion_events, (double)s->remote_lost_packets,
                             (double)s->remote_lost_bytes, (double)s->remote_sent_packets,
                             (double)s->remote_current_mtu, (double)s->remote_tx_datagrams,
                             (double)s->remote_tx_bytes, (double)s->remote_rx_datagrams,
                             (double)s->remote_rx_bytes};
    napi_set_named_property(env, obj, "remoteAge", js_number(env, s->remote_age));
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        napi_value v;
        if (s->remote_known & (1u << i)) {
            v = js_number(env, values[i]);
        } else {
            napi_get_null(env, &v);
        }
        napi_set_named_property(env, obj, names[i], v);
    }
}

/* One URL's figures as a flat object: {url, live, hasTransport, age, ...}. */
static napi_value stats_object(napi_env env, const weida_connection_stats_t *s, const char *url) {
    static const char *const names[] = {"age", "redials", "rtt", "minRtt", "latestRtt", "rttVariation",
                                        "congestionWindow", "lostPackets", "lostBytes", "txPackets",
                                        "txBytes", "rxPackets", "rxBytes"};
    const double values[] = {s->age, (double)s->redials, s->rtt, s->min_rtt, s->latest_rtt, s->rtt_variation,
                             (double)s->congestion_window, (double)s->lost_packets, (double)s->lost_bytes,
                             (double)s->tx_packets, (double)s->tx_bytes, (double)s->rx_packets,
                             (double)s->rx_bytes};
    napi_value obj, live, has_transport, has_remote;
    napi_create_object(env, &obj);
    napi_get_boolean(env, s->live != 0, &live);
    napi_get_boolean(env, s->has_transport != 0, &has_transport);
    napi_get_boolean(env, s->has_remote != 0, &has_remote);
    napi_set_named_property(env, obj, "url", js_string(env, url));
    napi_set_named_property(env, obj, "live", live);
    napi_set_named_property(env, obj, "hasTransport", has_transport);
    napi_set_named_property(env, obj, "hasRemote", has_remote);
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        napi_set_named_property(env, obj, names[i], js_number(env, values[i]));
    }
    if (s->has_remote) remote_figures(env, obj, s);
    return obj;
}

/* (h) -> [flat stats]: index 0, 1, ... until the library says WEIDA_END. */
static napi_value stats_of(napi_env env, napi_callback_info info, stats_fn fn) {
    napi_value argv[1];
    uint64_t h;
    if (!get_args(env, info, 1, argv) || !arg_handle(env, argv[0], &h)) return NULL;
    napi_value out;
    napi_create_array(env, &out);
    char small[512];
    for (size_t i = 0;; i++) {
        weida_connection_stats_t s = {.size = sizeof s};
        size_t needed = 0;
        const char *url = small;
        char *big = NULL;
        int rc = fn(h, i, &s, small, sizeof small, &needed);
        if (rc == WEIDA_ETRUNCATED) { /* a long bus name or socket path */
            big = malloc(needed);
            rc = big ? fn(h, i, &s, big, needed, &needed) : WEIDA_EINTERNAL;
            url = big;
        }
        if (rc == WEIDA_END) {
            free(big);
            return out;
        }
        if (rc != WEIDA_OK) {
            free(big);
            return throw_code(env, rc);
        }
        napi_set_element(env, out, (uint32_t)i, stats_object(env, &s, url));
        free(big);
    }
}

NAPI_FN(RequesterConnectionStats) { return stats_of(env, info, weida_requester_connection_stats); }
NAPI_FN(PusherConnectionStats) { return stats_of(env, info, weida_pusher_connection_stats); }
NAPI_FN(SubscriberConnectionStats) { return stats_of(env, info, weida_subscriber_connection_stats); }
NAPI_FN(PairedConnectionStats) { return stats_of(env, info, weida_paired_connection_stats); }
NAPI_FN(SurveyorConnectionStats) { return stats_of(env, info, weida_surveyor_connection_stats); }
NAPI_FN(BusConnectionStats) { return stats_of(env, info, weida_bus_connection_stats); }
NAPI_FN(DishConnectionStats) { return stats_of(env, info, weida_dish_connection_stats); }

const export_fn_t fn_local[] = {
    {"bindInproc", BindInproc},
    {"bindUnix", BindUnix},
    {"requesterConnectionStats", RequesterConnectionStats},
    {"pusherConnectionStats", PusherConnectionStats},
    {"subscriberConnectionStats", SubscriberConnectionStats},
    {"pairedConnectionStats", PairedConnectionStats},
    {"surveyorConnectionStats", SurveyorConnectionStats},
    {"busConnectionStats", BusConnectionStats},
    {"dishConnectionStats", DishConnectionStats},
    {NULL, NULL},
};

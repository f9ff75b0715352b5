/*
 * fn_peers.c — PAIR, SURVEY and BUS (weida.h's sections of the same names).
 */
#include "addon.h"

/* ---- PAIR ----------------------------------------------------------------- */

NAPI_FN(PairedConnect) { return call_with_text(env, info, "url", weida_paired_connect_async); }
NAPI_FN(PairedSend) { return call_with_bytes(env, info, "payload", SHAPE_UNIT, weida_paired_send_async); }
NAPI_FN(PairedOpen) { return call_plain(env, info, SHAPE_OSTREAM, weida_paired_open_async); }
NAPI_FN(PairedRecv) { return call_with_ceiling(env, info, "maxBytes", SHAPE_MSG, weida_paired_recv_async); }
NAPI_FN(PairedRecvStream) { return call_plain(env, info, SHAPE_ISTREAM, weida_paired_recv_stream_async); }
NAPI_FN(PairedPath) { return text_of(env, info, weida_paired_path); }
NAPI_FN(PairedPeerCount) { return count_size(env, info, weida_paired_peer_count); }

/* ---- SURVEY --------------------------------------------------------------- */

NAPI_FN(SurveyorConnect) { return call_with_text(env, info, "url", weida_surveyor_connect_async); }

NAPI_FN(SurveyorSurvey) { /* (h, payload, deadlineSeconds, maxReplyBytes, self) -> Promise<Survey> */
    napi_value argv[5];
    uint64_t h;
    const void *data;
    size_t len, max;
    double deadline;
    if (!get_args(env, info, 5, argv) || !arg_handle(env, argv[0], &h) ||
        !arg_bytes(env, argv[1], "payload", &data, &len) ||
        !arg_seconds(env, argv[2], "deadlineSeconds", &deadline) ||
        !arg_ceiling(env, argv[3], "maxReplyBytes", &max)) {
        return rejected_by_exception(env);
    }
    START_OP(SHAPE_SURVEY, argv[4], weida_surveyor_survey_async(h, data, len, deadline, max, on_done, p, &op));
}

NAPI_FN(SurveyorPeerCount) { return count_size(env, info, weida_surveyor_peer_count); }

NAPI_FN(RespondentAccept) {
    return call_with_ceiling(env, info, "maxBytes", SHAPE_REQUEST, weida_respondent_accept_async);
}
NAPI_FN(RespondentPath) { return text_of(env, info, weida_respondent_path); }

/* ---- BUS ------------------------------------------------------------------ */

NAPI_FN(BusConnect) { return call_with_text(env, info, "url", weida_bus_connect_async); }
NAPI_FN(BusSend) { return call_with_bytes(env, info, "payload", SHAPE_COUNT, weida_bus_send_async); }
NAPI_FN(BusRecv) { return call_with_ceiling(env, info, "maxBytes", SHAPE_MSG, weida_bus_recv_async); }
NAPI_FN(BusPeerCount) { return count_size(env, info, weida_bus_peer_count); }
NAPI_FN(BusDropped) { return count_u64(env, info, weida_bus_dropped); }
NAPI_FN(BusPath) { return text_of(env, info, weida_bus_path); }

const export_fn_t fn_peers[] = {
    {"pairedConnect", PairedConnect},
    {"pairedSend", PairedSend},
    {"pairedOpen", PairedOpen},
    {"pairedRecv", PairedRecv},
    {"pairedRecvStream", PairedRecvStream},
    {"pairedPath", PairedPath},
    {"pairedPeerCount", PairedPeerCount},
    {"surveyorConnect", SurveyorConnect},
    {"surveyorSurvey", SurveyorSurvey},
    {"surveyorPeerCount", SurveyorPeerCount},
    {"respondentAccept", RespondentAccept},
    {"respondentPath", RespondentPath},
    {"busConnect", BusConnect},
    {"busSend", BusSend},
    {"busRecv", BusRecv},
    {"busPeerCount", BusPeerCount},
    {"busDropped", BusDropped},
    {"busPath", BusPath},
    {NULL, NULL},
};

/*
 * survey.c — SURVEY through the C ABI: one surveyor asks three respondents,
 * which answer, refuse and stay silent. The respondents run on completion
 * callbacks.
 *
 * Claims: the survey asks 3, collects the 1 answer, counts 1 failure (the
 * refusal) and 1 silent respondent: silence is counted, never raised. A
 * blocking call made inside a callback is refused with WEIDA_ERUNTIME.
 */
#include "example.h"

enum behaviour { ANSWER, REFUSE, SILENT };

typedef struct {
    enum behaviour how;
    weida_respondent_t respondent;
    weida_request_t question;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done; /* the question was handled (for ANSWER: the reply written) */
    int blocking_refused;
} respondent_t;

static void mark_done(respondent_t *r) {
    pthread_mutex_lock(&r->mu);
    r->done = 1;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void on_replied(void *user, int code, uint64_t a, uint64_t b) {
    (void)a, (void)b;
    EXPECT(code == WEIDA_OK, "the reply written, got %s", weida_strerror(code));
    mark_done(user);
}

static void on_question(void *user, int code, uint64_t a, uint64_t b) {
    (void)b;
    respondent_t *r = user;
    EXPECT(code == WEIDA_OK, "a question, got %s", weida_strerror(code));
    r->question = a;
    switch (r->how) {
    case ANSWER:
        /* A blocking call here would stall a library thread: refused. */
        r->blocking_refused = weida_request_reply(a, "yes", 3) == WEIDA_ERUNTIME;
        CHECK(weida_request_reply_async(a, "yes", 3, on_replied, r, NULL));
        return;
    case REFUSE:
        CHECK(weida_request_refuse(a));
        break;
    case SILENT: /* holds the question until after the survey */
        break;
    }
    mark_done(r);
}

int main(void) {
    const char *paths[3] = {"/answers", "/refuses", "/silent"};
    weida_runtime_t rt;
    weida_identity_t id;
    weida_binding_t binding;
    weida_trust_t by_address;
    weida_surveyor_t surveyor;
    respondent_t rs[3];

    CHECK(weida_runtime_new(NULL, &rt));
    CHECK(weida_identity_generate(&id));
    CHECK(weida_bind_quic(rt, "127.0.0.1:0", id, NULL, &binding));
    CHECK(weida_trust_by_address(&by_address));
    CHECK(weida_runtime_surveyor(rt, by_address, NULL, &surveyor));
    for (int i = 0; i < 3; i++) {
        respondent_t *r = &rs[i];
        memset(r, 0, sizeof *r);
        r->how = (enum behaviour)i;
        pthread_mutex_init(&r->mu, NULL);
        pthread_cond_init(&r->cv, NULL);
        CHECK(weida_binding_respondent(binding, paths[i], &r->respondent));
        CHECK(weida_respondent_accept_async(r->respondent, 1024, on_question, r, NULL));
        text_t url = example_url(binding, paths[i]);
        CHECK(weida_surveyor_connect(surveyor, url.s));
    }
    size_t peers = 0;
    CHECK(weida_surveyor_peer_count(surveyor, &peers));
    EXPECT(peers == 3, "three respondents, got %zu", peers);

    /* The silent respondent holds the survey to its deadline. */
    weida_survey_t survey;
    CHECK(weida_surveyor_survey(surveyor, "ready?", 6, 2.0, 64, &survey));
    weida_survey_counts_t counts = {.size = sizeof counts};
    CHECK(weida_survey_counts(survey, &counts));
    EXPECT(counts.asked == 3 && counts.replies == 1 && counts.failed == 1 && counts.silent == 1,
           "asked 3, 1 reply, 1 failed, 1 silent; got %llu, %llu, %llu, %llu",
           (unsigned long long)counts.asked, (unsigned long long)counts.replies,
           (unsigned long long)counts.failed, (unsigned long long)counts.silent);
    const void *data;
    size_t len;
    CHECK(weida_survey_reply(survey, 0, &data, &len));
    EXPECT(len == 3 && memcmp(data, "yes", 3) == 0, "the answer");
    EXPECT_CODE(weida_survey_reply(survey, 1, &data, &len), WEIDA_EINVAL);
    CHECK(weida_close(survey));

    for (int i = 0; i < 3; i++) {
        respondent_t *r = &rs[i];
        if (r->how == SILENT) {
            mark_done(r); /* its question is closed below: NO_REPLY, too late */
        }
        pthread_mutex_lock(&r->mu);
        while (!r->done) {
            pthread_cond_wait(&r->cv, &r->mu);
        }
        pthread_mutex_unlock(&r->mu);
        CHECK(weida_close(r->question));
        CHECK(weida_close(r->respondent));
    }
    EXPECT(rs[ANSWER].blocking_refused, "a blocking reply inside a callback is refused");

    CHECK(weida_close(surveyor));
    CHECK(weida_close(by_address));
    CHECK(weida_close(binding));
    CHECK(weida_close(id));
    CHECK(weida_close(rt));
    example_no_leaks();
    puts("survey: ok");
    return 0;
}

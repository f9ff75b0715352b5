/*
 * addon.c — module init: the per-env state, the completion bridge, and the
 * export table (every fn_*.c list). Context-aware, so it loads in worker
 * threads too; each env gets its own bridge.
 */
#include "addon.h"

#include <stdio.h>
#include <stdlib.h>

static void free_addon(napi_env env, void *data, void *hint) {
    (void)hint;
    addon_t *addon = data;
    if (addon->make_error) napi_delete_reference(env, addon->make_error);
    for (int i = 0; i < CTOR_COUNT; i++) {
        if (addon->ctor[i]) napi_delete_reference(env, addon->ctor[i]);
    }
    /* Completions still in flight hold a pointer to this state and the
     * library may fire them at any later time: it is left allocated (and
     * closed to them by the cleanup hook) rather than freed under them. */
    pthread_rwlock_wrlock(&addon->gate);
    addon->closing = true;
    pthread_rwlock_unlock(&addon->gate);
}

static bool export_all(napi_env env, napi_value exports, const export_fn_t *list) {
    for (; list->name != NULL; list++) {
        napi_value fn;
        if (napi_create_function(env, list->name, NAPI_AUTO_LENGTH, list->fn, NULL, &fn) != napi_ok ||
            napi_set_named_property(env, exports, list->name, fn) != napi_ok) {
            return false;
        }
    }
    return true;
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
    if (weida_abi_version() != WEIDA_ABI_VERSION) {
        char why[128];
        snprintf(why, sizeof why, "weida: libweida implements C ABI %u, this addon was built for C ABI %d",
                 (unsigned)weida_abi_version(), WEIDA_ABI_VERSION);
        napi_throw_error(env, NULL, why);
        return NULL;
    }
    addon_t *addon = calloc(1, sizeof *addon);
    if (addon == NULL || napi_set_instance_data(env, addon, free_addon, NULL) != napi_ok ||
        !bridge_init(env, addon)) {
        napi_throw_error(env, NULL, "weida: could not start the completion bridge");
        return NULL;
    }
    if (!export_all(env, exports, fn_core) || !export_all(env, exports, fn_patterns) ||
        !export_all(env, exports, fn_peers) || !export_all(env, exports, fn_streams) ||
        !export_all(env, exports, fn_cursors) || !export_all(env, exports, fn_radio) ||
        !export_all(env, exports, fn_local) || !export_all(env, exports, fn_log)) {
        return NULL;
    }
    return exports;
}
